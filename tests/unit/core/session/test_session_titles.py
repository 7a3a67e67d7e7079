"""Session titles: recording, manual over automatic, finding the newest one in the file's tail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.history import Message, ToolCall
from app.core.session.listing import list_sessions
from app.core.session.recorder import SessionRecorder
from app.core.session.resume import load_session
from app.core.session.tail import TAIL_BYTES, TITLE_REANCHOR_BYTES, read_tail
from app.core.session.titles import (
    AUTO_TITLE_ATTEMPT_CAP,
    TITLE_MAX_CHARS,
    clean_title,
    manual_title,
    title_prompt,
)


def _recorder(chats: Path, **kwargs) -> SessionRecorder:  # type: ignore[no-untyped-def]
    return SessionRecorder(chats, cwd=Path("/project"), version="0.1.0", **kwargs)


def _titles(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data.get("subtype") == "custom_title":
            out.append((data["systemPayload"]["customTitle"], data["systemPayload"]["titleSource"]))
    return out


def _grow(rec: SessionRecorder, total: int, chunk: int = 10_000) -> None:
    """Conversation after the title: tool results of ``chunk`` characters, each different."""
    for n in range(total // chunk):
        call = ToolCall(f"c{n}", "read_file", "{}")
        rec.append_message(Message(role="assistant", tool_calls=[call]))
        rec.append_message(Message.tool_result(call, f"{n:06d}" + "x" * chunk))


def test_the_cap_is_three() -> None:
    assert AUTO_TITLE_ATTEMPT_CAP == 3


def test_a_manual_title_always_wins_over_an_automatic_one(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"))
    assert rec.append_title("Auto one", "auto") is not None
    assert rec.append_title("Mine", "manual") is not None
    assert rec.append_title("Auto two", "auto") is None  # refused
    assert (rec.title, rec.title_source) == ("Mine", "manual")
    assert rec.append_title("Mine, renamed", "manual") is not None
    assert _titles(rec.path) == [("Auto one", "auto"), ("Mine", "manual"), ("Mine, renamed", "manual")]
    loaded = load_session(rec.path)
    assert (loaded.title, loaded.title_source) == ("Mine, renamed", "manual")


def test_resume_prefers_an_older_manual_title_to_a_newer_automatic_one(tmp_path: Path) -> None:
    # Another writer may interleave them; the manual one still wins.
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"))
    rec.append_title("Mine", "manual")
    rec.title_source = "auto"  # pretend this writer did not know
    rec.append_title("Auto", "auto")
    loaded = load_session(rec.path)
    assert (loaded.title, loaded.title_source) == ("Mine", "manual")
    tail = read_tail(rec.path)
    assert (tail.title, tail.title_source) == ("Mine", "manual")


def test_the_title_is_found_in_the_tail_of_a_large_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _recorder(tmp_path, git_branch="feature/x")
    rec.append_message(Message.user("start"))
    rec.append_title("Speed up resume", "auto")
    _grow(rec, 3_000_000)
    assert rec.path.stat().st_size > 40 * TAIL_BYTES

    bytes_read: list[int] = []
    real_open = Path.open

    class Counting:
        def __init__(self, handle):  # type: ignore[no-untyped-def]
            self._handle = handle

        def read(self, *args):  # type: ignore[no-untyped-def]
            data = self._handle.read(*args)
            bytes_read.append(len(data))
            return data

        def readline(self, *args):  # type: ignore[no-untyped-def]
            data = self._handle.readline(*args)
            bytes_read.append(len(data))
            return data

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self._handle, name)

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc):  # type: ignore[no-untyped-def]
            return self._handle.__exit__(*exc)

    monkeypatch.setattr(Path, "open", lambda self, *a, **k: Counting(real_open(self, *a, **k)))
    [summary] = list_sessions(tmp_path)
    assert (summary.title, summary.title_source, summary.label) == ("Speed up resume", "auto", "Speed up resume")
    assert summary.first_prompt == "start" and summary.git_branch == "feature/x"
    assert summary.size == rec.path.stat().st_size
    assert sum(bytes_read) <= TAIL_BYTES + 10_000


def test_the_title_is_written_again_every_32_kb(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("start"))
    rec.append_title("Keep me findable", "manual")
    _grow(rec, 200_000, chunk=3_000)
    titles = _titles(rec.path)
    assert len(titles) >= 200_000 // TITLE_REANCHOR_BYTES
    assert set(titles) == {("Keep me findable", "manual")}
    tail = read_tail(rec.path)
    assert tail.title == "Keep me findable" and tail.bytes_after_title is not None
    assert tail.bytes_after_title < TITLE_REANCHOR_BYTES


def test_a_single_huge_record_is_followed_by_the_title(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("start"))
    rec.append_title("Big read", "auto")
    _grow(rec, 500_000, chunk=500_000)
    assert read_tail(rec.path).title == "Big read"


def test_a_resumed_recorder_keeps_anchoring_the_title(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("start"))
    rec.append_title("Carry on", "manual")
    resumed = SessionRecorder.resume(rec.path, cwd=Path("/project"), version="0.1.0")
    assert (resumed.title, resumed.title_source) == ("Carry on", "manual")
    assert resumed.append_title("Auto", "auto") is None
    _grow(resumed, 300_000)
    assert read_tail(rec.path).title == "Carry on"


def test_sessions_without_a_title_fall_back_to_the_first_prompt(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("what does this do?"))
    [summary] = list_sessions(tmp_path)
    assert summary.title is None and summary.label == "what does this do?"


def test_commands_and_titles_before_the_first_message_wait_for_it(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_system("slash_command", {"phase": "invocation", "rawCommand": "/help"}, defer=True)
    rec.append_title("Named early", "manual")
    assert not rec.path.exists(), "a /help in a fresh session leaves no session file behind"
    rec.append_message(Message.user("now the work"))
    lines = [json.loads(line) for line in rec.path.read_text(encoding="utf-8").splitlines()]
    assert [line.get("subtype") or line["type"] for line in lines] == ["slash_command", "custom_title", "user"]
    assert [line["parentUuid"] for line in lines] == [None, lines[0]["uuid"], lines[1]["uuid"]]
    # Once the file exists, nothing waits.
    rec.append_system("slash_command", {"phase": "invocation", "rawCommand": "/tools"}, defer=True)
    assert rec.path.read_text(encoding="utf-8").count("/tools") == 1


def test_clean_title_drops_markdown() -> None:
    assert clean_title("## **Fix the `parser` test**") == "Fix the parser test"
    assert clean_title("Title: [Deploy docs](https://x.io) for *v2*") == "Deploy docs for v2"
    assert clean_title("**`make test` on CI**") == "make test on CI"
    assert clean_title("snake_case_names stay") == "snake_case_names stay"


def test_clean_title() -> None:
    assert clean_title('"Fix the flaky parser test."') == "Fix the flaky parser test"
    assert clean_title("Title: **Add dark theme**\n\nBecause the user asked.") == "Add dark theme"
    assert clean_title("<think>they want a title</think>\nSpeed up resume") == "Speed up resume"
    assert clean_title("「修复解析器测试」。") == "修复解析器测试"
    assert clean_title("  \n ") == ""
    long = clean_title("word " * 60)
    assert len(long) <= TITLE_MAX_CHARS and long.endswith("…")


def test_title_prompt_needs_a_finished_exchange_and_skips_tools_and_reminders() -> None:
    call = ToolCall("c1", "read_file", "{}")
    assert title_prompt([Message.user("hi")]) is None
    history = [
        Message.user("<system-reminder>recalled memory</system-reminder>fix the parser"),
        Message(role="assistant", tool_calls=[call]),
        Message.tool_result(call, "SECRET FILE CONTENT"),
        Message(role="assistant", content="Fixed it.", reasoning="hidden thoughts"),
    ]
    prompt = title_prompt(history)
    assert prompt is not None
    assert "Person: fix the parser" in prompt and "Assistant: Fixed it." in prompt
    assert "SECRET" not in prompt and "recalled memory" not in prompt and "hidden" not in prompt


def test_manual_title_is_one_line() -> None:
    assert manual_title("  my\n  session ") == "my session"
    assert manual_title("   ") == ""


def test_tail_edge_cases(tmp_path: Path) -> None:
    rec = _recorder(tmp_path, git_branch="main")
    rec.append_message(Message.user("start"))
    rec.append_title("Named", "auto")
    size_after_title = rec.path.stat().st_size
    rec.append_message(Message(role="assistant", content="short answer"))
    tail = read_tail(rec.path)
    assert (tail.title, tail.git_branch, tail.whole_file, tail.message_count) == ("Named", "main", True, 2)
    assert tail.bytes_after_title == rec.path.stat().st_size - size_after_title

    # A huge record is followed by the title again, so even then the tail holds it.
    rec.append_message(Message(role="assistant", content="y" * (2 * TAIL_BYTES)))
    assert read_tail(rec.path).title == "Named"

    # A tail inside one endless torn line has nothing whole to read, and that is no error.
    torn = tmp_path / "fedcba9876543210fedcba9876543210.jsonl"
    torn.write_bytes(b'{"uuid": "t", "type": "user", "message": {"role": "user", "content": "' + b"z" * (2 * TAIL_BYTES))
    assert read_tail(torn).title is None and read_tail(torn).git_branch is None

    empty = tmp_path / "0123456789abcdef0123456789abcdef.jsonl"
    empty.write_bytes(b"")
    assert read_tail(empty).title is None and read_tail(empty).message_count == 0
