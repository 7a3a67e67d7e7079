"""SessionRecorder: lazy file, one line per append, parent chain, fsync, resume."""

from __future__ import annotations

import json
import os
import stat
import uuid
from pathlib import Path

import pytest

from app.core.history import Message, ToolCall, Usage
from app.core.session import recorder as recorder_module
from app.core.session.recorder import SessionRecorder
from app.core.session.resume import load_session


def _recorder(chats_dir: Path, **kwargs) -> SessionRecorder:
    return SessionRecorder(chats_dir, cwd=Path("/project"), version="0.1.0", **kwargs)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_new_session_id_is_a_uuid4_and_names_the_file(tmp_path: Path) -> None:
    rec = _recorder(tmp_path / "chats")
    assert uuid.UUID(rec.session_id).version == 4
    assert rec.path == tmp_path / "chats" / f"{rec.session_id}.jsonl"


def test_file_and_dirs_are_created_only_on_first_append(tmp_path: Path) -> None:
    chats = tmp_path / "data" / "chats"
    rec = _recorder(chats)
    assert not chats.exists()
    rec.append_message(Message.user("hi"))
    assert rec.path.is_file()
    assert stat.S_IMODE(chats.stat().st_mode) == 0o700
    assert stat.S_IMODE(rec.path.stat().st_mode) & 0o077 == 0


def test_each_append_is_one_line_and_chains_parent_uuids(tmp_path: Path) -> None:
    rec = _recorder(tmp_path, git_branch="main")
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    first = rec.append_message(Message.user("hi"), durable=True)
    second = rec.append_message(
        Message(role="assistant", content="", tool_calls=[call]), usage=Usage(prompt_tokens=3), model="m"
    )
    third = rec.append_message(Message.tool_result(call, "contents"))
    fourth = rec.append_system("slash_command", {"phase": "invocation", "rawCommand": "/help"})

    lines = _lines(rec.path)
    assert [line["type"] for line in lines] == ["user", "assistant", "tool_result", "system"]
    assert [line["uuid"] for line in lines] == [first.uuid, second.uuid, third.uuid, fourth.uuid]
    assert [line["parentUuid"] for line in lines] == [None, first.uuid, second.uuid, third.uuid]
    assert {line["sessionId"] for line in lines} == {rec.session_id}
    assert all(line["cwd"] == "/project" and line["gitBranch"] == "main" for line in lines)
    assert lines[1]["model"] == "m" and lines[1]["usageMetadata"]["prompt_tokens"] == 3
    assert lines[3]["subtype"] == "slash_command" and lines[3]["systemPayload"]["rawCommand"] == "/help"
    assert rec.last_uuid == fourth.uuid


def test_system_message_becomes_a_system_record(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    assert rec.append_message(Message.system("be brief")).type == "system"


def test_only_durable_appends_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real_fsync(fd)))
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"), durable=True)
    assert len(calls) == 1
    rec.append_message(Message(role="assistant", content="hello"))
    rec.append_system("notification", {"text": "x"})
    assert len(calls) == 1


def test_each_record_is_written_in_one_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("first"))
    writes: list[bytes] = []
    real_write = os.write

    def spy(fd: int, data) -> int:  # type: ignore[no-untyped-def]
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(recorder_module.os, "write", spy)
    rec.append_message(Message.user("second"))
    assert len(writes) == 1 and writes[0].endswith(b"\n") and writes[0].count(b"\n") == 1


def test_given_session_id_is_used_and_validated(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    assert _recorder(tmp_path, session_id=sid).path.name == f"{sid}.jsonl"
    with pytest.raises(ValueError, match="not a session id"):
        _recorder(tmp_path, session_id="../../etc/passwd")


def test_resume_continues_the_same_file_and_chain(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"))
    last = rec.append_message(Message(role="assistant", content="hello"))

    resumed = SessionRecorder.resume(rec.path, cwd=Path("/project"), version="0.2.0")
    assert resumed.session_id == rec.session_id
    assert resumed.path == rec.path
    assert resumed.last_uuid == last.uuid
    nxt = resumed.append_message(Message.user("again"))
    assert nxt.parent_uuid == last.uuid

    lines = _lines(rec.path)
    assert len(lines) == 3 and lines[2]["version"] == "0.2.0"


def test_resume_chains_onto_last_valid_record_when_tail_is_torn(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"))
    last = rec.append_message(Message(role="assistant", content="hello"))
    with rec.path.open("ab") as handle:
        handle.write(b'{"uuid": "torn", "parentUuid": "x", "sessi')

    resumed = SessionRecorder.resume(rec.path, cwd=Path("/project"), version="0.1.0")
    assert resumed.last_uuid == last.uuid
    resumed.append_message(Message.user("after the crash"))

    raw_lines = rec.path.read_text(encoding="utf-8").split("\n")
    assert raw_lines[-1] == ""  # file ends with a newline
    assert raw_lines[2].startswith('{"uuid": "torn"')  # torn line left alone, on its own line
    assert json.loads(raw_lines[3])["message"]["content"] == "after the crash"

    loaded = load_session(rec.path)
    assert [m.content for m in loaded.messages] == ["hi", "hello", "after the crash"]
    assert len(loaded.warnings) == 1 and "line 3" in loaded.warnings[0]


def test_a_fresh_recorder_on_a_torn_file_also_starts_a_new_line(tmp_path: Path) -> None:
    sid = str(uuid.uuid4())
    path = tmp_path / f"{sid}.jsonl"
    path.write_bytes(b'{"half": ')
    _recorder(tmp_path, session_id=sid).append_message(Message.user("x"))
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[1])["message"]["content"] == "x"


def test_resume_of_a_file_with_large_records_reads_from_the_end(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("x" * 300_000))
    last = rec.append_message(Message(role="assistant", content="y" * 200_000))
    assert SessionRecorder.resume(rec.path, cwd=Path("/p"), version="1").last_uuid == last.uuid


def test_resume_rejects_missing_or_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        SessionRecorder.resume(tmp_path / f"{uuid.uuid4()}.jsonl", cwd=tmp_path, version="1")
    other = tmp_path / "notes.txt"
    other.write_text("x")
    with pytest.raises(ValueError):
        SessionRecorder.resume(other, cwd=tmp_path, version="1")


def test_resume_of_file_with_no_valid_record_starts_a_fresh_chain(tmp_path: Path) -> None:
    path = tmp_path / f"{uuid.uuid4()}.jsonl"
    path.write_text("garbage\n")
    resumed = SessionRecorder.resume(path, cwd=tmp_path, version="1")
    assert resumed.last_uuid is None
    assert resumed.append_message(Message.user("x")).parent_uuid is None


def test_a_short_write_is_completed_not_left_torn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _recorder(tmp_path)
    real_write = os.write
    calls: list[int] = []

    def at_most_1000(fd: int, data) -> int:  # type: ignore[no-untyped-def]
        calls.append(len(data))
        return real_write(fd, bytes(data[:1000]))

    monkeypatch.setattr(recorder_module.os, "write", at_most_1000)
    rec.append_message(Message(role="assistant", content="y" * 5000))
    assert len(calls) > 1
    [line] = _lines(rec.path)
    assert line["message"]["content"] == "y" * 5000


async def test_cancelling_the_task_that_records_never_splits_a_line(tmp_path: Path) -> None:
    import asyncio

    rec = _recorder(tmp_path)
    big = "z" * 2_000_000

    async def turn() -> None:
        for n in range(50):
            rec.append_message(Message(role="assistant", content=f"{n}{big}"))
            await asyncio.sleep(0)

    task = asyncio.create_task(turn())
    for _ in range(3):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    raw = rec.path.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.splitlines()
    assert 1 <= len(lines) < 50
    assert all(json.loads(line)["message"]["content"].endswith(big) for line in lines)
