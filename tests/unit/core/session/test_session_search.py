"""Searching sessions by text, deleting one, and how sizes read."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from app.core.history import Message, ToolCall
from app.core.session.delete import delete_session, session_files_to_delete
from app.core.session.display import human_size
from app.core.session.listing import list_sessions
from app.core.session.recorder import SessionRecorder
from app.core.session.search import search_sessions, snippet_around


def _session(chats: Path, *messages: Message, title: str | None = None, mtime: float | None = None) -> SessionRecorder:
    rec = SessionRecorder(chats, cwd=Path("/project"), version="0.1.0")
    for message in messages:
        rec.append_message(message)
    if title:
        rec.append_title(title, "manual")
    if mtime is not None:
        os.utime(rec.path, (mtime, mtime))
    return rec


def _ids(chats: Path, query: str) -> list[str]:
    return [hit.summary.session_id for hit in search_sessions(chats, query)]


def test_title_first_prompt_and_dialog_are_searched_newest_first(tmp_path: Path) -> None:
    by_title = _session(tmp_path, Message.user("hello"), title="Parser rewrite", mtime=3_000)
    by_prompt = _session(tmp_path, Message.user("the PARSER crashes on empty input"), mtime=2_000)
    by_answer = _session(
        tmp_path,
        Message.user("look at this"),
        Message(role="assistant", content="The tokenizer feeds the parser a None."),
        mtime=1_000,
    )
    _session(tmp_path, Message.user("unrelated"), mtime=4_000)

    hits = list(search_sessions(tmp_path, "parser"))
    assert [h.summary.session_id for h in hits] == [by_title.session_id, by_prompt.session_id, by_answer.session_id]
    assert [h.where for h in hits] == ["title", "first prompt", "message"]
    assert hits[2].snippet == "The tokenizer feeds the parser a None."
    assert hits[0].summary.title == "Parser rewrite"


def test_tool_output_is_not_searched(tmp_path: Path) -> None:
    call = ToolCall("c1", "read_file", '{"path": "big.py"}')
    _session(
        tmp_path,
        Message.user("read it"),
        Message(role="assistant", tool_calls=[call]),
        Message.tool_result(call, "def needle_in_code(): ..."),
    )
    assert _ids(tmp_path, "needle_in_code") == []


def test_matching_is_case_insensitive_across_scripts_and_escapes(tmp_path: Path) -> None:
    rec = _session(
        tmp_path,
        Message.user("start"),
        Message(role="assistant", content='Use "quotes" and a back\\slash; Élan vital; 会话标题已保存。'),
    )
    for query in ('"QUOTES" and', "back\\slash", "élan VITAL", "会话标题", "  quotes\"   and  "):
        assert _ids(tmp_path, query) == [rec.session_id], query
    assert _ids(tmp_path, "会话列表") == []


def test_an_empty_query_finds_nothing(tmp_path: Path) -> None:
    _session(tmp_path, Message.user("x"))
    assert _ids(tmp_path, "   ") == []


def test_the_caller_can_stop_a_search(tmp_path: Path) -> None:
    for n in range(5):
        _session(tmp_path, Message.user(f"common words {n}"))
    seen: list[str] = []
    for hit in search_sessions(tmp_path, "common", stop=lambda: len(seen) >= 2):
        seen.append(hit.summary.session_id)
    assert len(seen) == 2


def test_a_long_session_checks_stop_while_it_reads(tmp_path: Path) -> None:
    rec = _session(tmp_path, Message.user("start"))
    for n in range(500):
        rec.append_message(Message(role="assistant", content=f"line {n}"))
    rec.append_message(Message(role="assistant", content="the needle"))
    checks: list[int] = []

    def stop() -> bool:
        checks.append(1)
        return len(checks) > 3

    assert list(search_sessions(tmp_path, "needle", stop=stop)) == []


def test_directories_and_unreadable_files_are_skipped(tmp_path: Path) -> None:
    kept = _session(tmp_path, Message.user("findable text"))
    (tmp_path / f"{uuid.uuid4()}.jsonl").mkdir()
    assert _ids(tmp_path, "findable") == [kept.session_id]


def test_snippet_is_one_line_around_the_match() -> None:
    text = "start " + "x " * 100 + "the\nneedle is here" + " y" * 100
    snippet = snippet_around(text, "needle")
    assert "\n" not in snippet and "needle is here" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")


def test_delete_removes_the_record_and_its_context_sidecar(tmp_path: Path) -> None:
    gone = _session(tmp_path, Message.user("delete me"))
    kept = _session(tmp_path, Message.user("keep me"))
    sidecar = tmp_path / f"{gone.session_id}.context.json"
    sidecar.write_text("{}", encoding="utf-8")
    other_sidecar = tmp_path / f"{kept.session_id}.context.json"
    other_sidecar.write_text("{}", encoding="utf-8")

    assert session_files_to_delete(gone.path) == [gone.path, sidecar]
    assert delete_session(gone.path) == [gone.path, sidecar]
    assert not gone.path.exists() and not sidecar.exists()
    assert kept.path.exists() and other_sidecar.exists()
    assert [s.session_id for s in list_sessions(tmp_path)] == [kept.session_id]
    assert delete_session(gone.path) == []  # already gone: nothing to do, no error


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 812, 1024, 12_600, 4_300_000, 150 * 1024**2, 3 * 1024**4)] == [
        "0 B",
        "812 B",
        "1.0 KB",
        "12.3 KB",
        "4.1 MB",
        "150 MB",
        "3.0 TB",
    ]
