"""Listing sessions: order, head-only reading, id prefixes, ignored files."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from app.core.history import Message
from app.core.session import head as head_module
from app.core.session.listing import SessionNotFound, find_session, latest_session, list_sessions
from app.core.session.recorder import SessionRecorder
from app.core.session.tail import TAIL_BYTES


def _session(chats: Path, prompt: str, *, mtime: float | None = None, session_id: str | None = None) -> SessionRecorder:
    rec = SessionRecorder(chats, session_id=session_id, cwd=Path("/project"), version="0.1.0")
    rec.append_system("slash_command", {"phase": "invocation", "rawCommand": "/model"})
    rec.append_message(Message.user(prompt))
    rec.append_message(Message(role="assistant", content="answer"))
    if mtime is not None:
        os.utime(rec.path, (mtime, mtime))
    return rec


def test_sessions_are_listed_newest_first_by_mtime(tmp_path: Path) -> None:
    old = _session(tmp_path, "old", mtime=1_000_000)
    new = _session(tmp_path, "new", mtime=3_000_000)
    mid = _session(tmp_path, "mid", mtime=2_000_000)

    summaries = list_sessions(tmp_path)
    assert [s.session_id for s in summaries] == [new.session_id, mid.session_id, old.session_id]
    assert [s.first_prompt for s in summaries] == ["new", "mid", "old"]
    assert summaries[0].path == new.path
    assert summaries[0].updated_at.timestamp() == 3_000_000
    assert summaries[0].started_at is not None
    assert summaries[0].message_count == 2  # system records are not messages
    assert [s.session_id for s in list_sessions(tmp_path, limit=2)] == [new.session_id, mid.session_id]
    assert latest_session(tmp_path).session_id == new.session_id


def test_missing_or_empty_directory_lists_nothing(tmp_path: Path) -> None:
    assert list_sessions(tmp_path / "nope") == []
    assert latest_session(tmp_path) is None


def test_files_not_named_like_sessions_are_ignored(tmp_path: Path) -> None:
    kept = _session(tmp_path, "real")
    (tmp_path / "notes.jsonl").write_text(kept.path.read_text())
    (tmp_path / f"{kept.session_id}.json").write_text(kept.path.read_text())
    (tmp_path / f"{kept.session_id}.jsonl.bak").write_text(kept.path.read_text())
    (tmp_path / "0123456789abcdef0123456789abcdeg.jsonl").write_text(kept.path.read_text())
    (tmp_path / f"{uuid.uuid4()}.jsonl").mkdir()
    assert [s.session_id for s in list_sessions(tmp_path)] == [kept.session_id]


def test_first_prompt_is_one_line_and_capped(tmp_path: Path) -> None:
    _session(tmp_path, "line one\n\n  line   two " + "z" * 500)
    prompt = list_sessions(tmp_path)[0].first_prompt
    assert "\n" not in prompt and prompt.startswith("line one line two z")
    assert len(prompt) <= 200 and prompt.endswith("…")


def test_only_the_head_is_read(tmp_path: Path) -> None:
    rec = _session(tmp_path, "the question")
    with rec.path.open("ab") as handle:
        for _ in range(1000):
            handle.write(b"\xff\xfe garbage that is not a record {{{\n")
    summary = list_sessions(tmp_path)[0]
    assert summary.first_prompt == "the question"


def test_large_files_are_not_read_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _session(tmp_path, "big one")
    rec.append_message(Message(role="assistant", content="y" * 5_000_000))
    bytes_read: list[int] = []
    real_open = Path.open

    class CountingFile:
        def __init__(self, handle):
            self._handle = handle

        def readline(self, *args):
            line = self._handle.readline(*args)
            bytes_read.append(len(line))
            return line

        def read(self, *args):
            data = self._handle.read(*args)
            bytes_read.append(len(data))
            return data

        def __getattr__(self, name):
            return getattr(self._handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self._handle.__exit__(*exc)

        def __iter__(self):
            raise AssertionError("listing must not iterate over a whole file")

    monkeypatch.setattr(Path, "open", lambda self, *a, **k: CountingFile(real_open(self, *a, **k)))
    summary = list_sessions(tmp_path)[0]
    assert summary.first_prompt == "big one"
    assert summary.message_count is None  # too big to count cheaply
    # The first lines and the last 64 KB (title, branch), never the 5 MB in between.
    assert sum(bytes_read) < 10_000 + TAIL_BYTES


def test_huge_first_prompt_is_previewed_from_its_start(tmp_path: Path) -> None:
    rec = SessionRecorder(tmp_path, cwd=Path("/p"), version="1")
    rec.append_message(Message.user('paste: "quoted" é\tand ' + "x" * (2 * head_module.HEAD_LINE_LIMIT)))
    summary = list_sessions(tmp_path)[0]
    assert summary.first_prompt.startswith('paste: "quoted" é and xxx')
    assert len(summary.first_prompt) <= 200
    assert summary.started_at is not None


def test_garbage_before_the_first_prompt_is_skipped(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    path = tmp_path / f"{sid}.jsonl"
    path.write_bytes(b"not json\n[1]\n")
    rec = SessionRecorder(tmp_path, session_id=sid, cwd=Path("/p"), version="1")
    rec.append_message(Message.user("still found"))
    assert list_sessions(tmp_path)[0].first_prompt == "still found"


def test_session_without_user_message_has_empty_prompt(tmp_path: Path) -> None:
    rec = SessionRecorder(tmp_path, cwd=Path("/p"), version="1")
    rec.append_system("notification", {"text": "x"})
    summary = list_sessions(tmp_path)[0]
    assert summary.first_prompt == "" and summary.message_count == 0


def _fixed_ids(tmp_path: Path) -> dict[str, SessionRecorder]:
    ids = [
        "abcd1234-0000-4000-8000-000000000001",
        "abcd5678-0000-4000-8000-000000000002",
        "ef012345-0000-4000-8000-000000000003",
    ]
    return {sid: _session(tmp_path, sid[:4], session_id=sid) for sid in ids}


def test_find_session_by_full_id_or_unique_prefix(tmp_path: Path) -> None:
    _fixed_ids(tmp_path)
    assert find_session(tmp_path, "abcd1234-0000-4000-8000-000000000001").first_prompt == "abcd"
    assert find_session(tmp_path, "ABCD5").session_id == "abcd5678-0000-4000-8000-000000000002"
    assert find_session(tmp_path, " ef01 ").session_id == "ef012345-0000-4000-8000-000000000003"


def test_find_session_errors_are_clear(tmp_path: Path) -> None:
    _fixed_ids(tmp_path)
    with pytest.raises(SessionNotFound, match=f"no session matches '9999' in {tmp_path}"):
        find_session(tmp_path, "9999")
    with pytest.raises(SessionNotFound, match="'abcd' matches 2 sessions; give more characters"):
        find_session(tmp_path, "abcd")
    with pytest.raises(SessionNotFound, match="at least 4"):
        find_session(tmp_path, "ef0")
    with pytest.raises(ValueError):  # SessionNotFound is a ValueError
        find_session(tmp_path / "missing", "abcd1234")
