"""load_session: rebuilding messages, skipping bad lines, checkpoints, repair, memory."""

from __future__ import annotations

import json
import tracemalloc
import uuid
from pathlib import Path

from app.core.history import Message, ToolCall, Usage
from app.core.session.recorder import SessionRecorder
from app.core.session.records import Record
from app.core.session.resume import INTERRUPTED_TOOL_RESULT, LoadedSession, load_session


def _recorder(chats_dir: Path) -> SessionRecorder:
    return SessionRecorder(chats_dir, cwd=Path("/project"), version="0.1.0")


def _conversation(rec: SessionRecorder) -> None:
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "a.py"}')
    rec.append_message(Message.user("fix   the\nbug"), durable=True)
    rec.append_message(Message(role="assistant", tool_calls=[call]), usage=Usage(prompt_tokens=100), model="m1")
    rec.append_message(Message.tool_result(call, "print('hi')"))
    rec.append_message(Message(role="assistant", content="done"), usage=Usage(prompt_tokens=150), model="m2")


def test_messages_come_back_in_order_with_metadata(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    _conversation(rec)
    rec.append_system("slash_command", {"phase": "invocation", "rawCommand": "/help"})

    loaded = load_session(rec.path)
    assert loaded.session_id == rec.session_id and loaded.path == rec.path
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool", "assistant"]
    assert loaded.messages[1].tool_calls[0].name == "read_file"
    assert loaded.messages[2].tool_call_id == "c1"
    assert len(loaded.records) == 5 and loaded.records[-1].subtype == "slash_command"
    assert loaded.warnings == []
    assert loaded.last_usage == Usage(prompt_tokens=150)
    assert loaded.model == "m2"
    assert loaded.first_prompt == "fix the bug"
    assert loaded.started_at is not None and loaded.updated_at is not None
    assert loaded.started_at <= loaded.updated_at


def test_system_records_do_not_become_messages(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.system("you are an agent"))
    rec.append_message(Message.user("hi"))
    assert [m.role for m in load_session(rec.path).messages] == ["user"]


def _write_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(lines))


def _line(record: Record) -> bytes:
    return record.to_json_line().encode("utf-8")


def _user_record(text: str, n: int) -> Record:
    return Record(
        uuid=f"u{n}",
        parent_uuid=None,
        session_id="s",
        timestamp="2025-01-01T00:00:00.000Z",
        type="user",
        cwd="/p",
        version="1",
        message=Message.user(text),
    )


def test_bad_lines_are_skipped_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / f"{uuid.uuid4()}.jsonl"
    unknown_role = _user_record("x", 9).to_dict()
    unknown_role["message"]["role"] = "robot"
    missing_field = _user_record("x", 8).to_dict()
    del missing_field["sessionId"]
    _write_lines(
        path,
        [
            _line(_user_record("one", 1)),  # line 1
            b"this is not json\n",  # line 2
            b"\n",  # blank: ignored silently
            b'{"message": "caf\xe9 in latin-1"}\n',  # line 4
            b"[1, 2, 3]\n",  # line 5
            (json.dumps(unknown_role) + "\n").encode(),  # line 6
            (json.dumps(missing_field) + "\n").encode(),  # line 7
            _line(_user_record("two", 2)),  # line 8
        ],
    )
    loaded = load_session(path)
    assert [m.content for m in loaded.messages] == ["one", "two"]
    assert loaded.warnings == [
        f"line 2 of {path} could not be read (invalid JSON) and was skipped",
        f"line 4 of {path} could not be read (not valid UTF-8) and was skipped",
        f"line 5 of {path} could not be read (not a JSON object (got a JSON array)) and was skipped",
        f"line 6 of {path} could not be read (unknown message role 'robot') and was skipped",
        f"line 7 of {path} could not be read (missing required field 'sessionId') and was skipped",
    ]


def test_torn_last_line_is_skipped_and_explained(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"))
    with rec.path.open("ab") as handle:
        handle.write(b'{"uuid": "abc", "type": "assist')
    loaded = load_session(rec.path)
    assert [m.content for m in loaded.messages] == ["hi"]
    assert len(loaded.warnings) == 1
    assert "line 2" in loaded.warnings[0] and "cut off" in loaded.warnings[0]


def test_last_compression_checkpoint_rebuilds_history(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("very old"))
    rec.append_message(Message(role="assistant", content="old answer"), usage=Usage(prompt_tokens=900))
    rec.append_system(
        "chat_compression",
        {"info": {"newTokenCount": 10}, "compressedHistory": [Message.user("summary 1").to_dict()]},
    )
    rec.append_message(Message.user("middle"))
    rec.append_system(
        "chat_compression",
        {
            "info": {"newTokenCount": 20},
            "compressedHistory": [
                Message.user("summary 2").to_dict(),
                Message(role="assistant", content="ok").to_dict(),
            ],
        },
    )
    rec.append_message(Message.user("new question"))
    rec.append_message(Message(role="assistant", content="new answer"))
    rec.append_system("notification", {"text": "ignored"})

    loaded = load_session(rec.path)
    assert [m.content for m in loaded.messages] == ["summary 2", "ok", "new question", "new answer"]
    assert loaded.first_prompt == "very old"  # the session's own first prompt, not the summary
    assert loaded.last_usage is None  # the 900-token usage describes the old, uncompressed context
    assert len(loaded.records) == 8


def test_checkpoint_without_compressed_history_changes_nothing(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("a"))
    rec.append_system("chat_compression", {"info": {}})
    rec.append_message(Message.user("b"))
    assert [m.content for m in load_session(rec.path).messages] == ["a", "b"]


def test_unusable_checkpoint_is_reported_and_history_kept(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("a"))
    rec.append_system("chat_compression", {"compressedHistory": [{"role": "robot"}]})
    rec.append_message(Message.user("b"))
    loaded = load_session(rec.path)
    assert [m.content for m in loaded.messages] == ["a", "b"]
    assert len(loaded.warnings) == 1 and "compression checkpoint on line 2" in loaded.warnings[0]


def test_dangling_tool_calls_after_a_crash_get_error_results(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    calls = [ToolCall(id="c1", name="shell"), ToolCall(id="c2", name="read_file")]
    rec.append_message(Message.user("go"))
    rec.append_message(Message(role="assistant", tool_calls=calls))
    rec.append_message(Message.tool_result(calls[0], "ok"))
    # crash before c2's result

    loaded = load_session(rec.path)
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool", "tool"]
    synthetic = loaded.messages[-1]
    assert synthetic.tool_call_id == "c2" and synthetic.is_error and synthetic.content == INTERRUPTED_TOOL_RESULT
    assert len(loaded.warnings) == 1 and "1 tool call" in loaded.warnings[0]
    assert len(rec.path.read_text().splitlines()) == 3  # repair is in memory only


def test_dangling_calls_from_an_earlier_turn_are_answered_in_place(tmp_path: Path) -> None:
    # A resumed session that was not repaired on disk: the gap is mid-history.
    rec = _recorder(tmp_path)
    call = ToolCall(id="c1", name="shell")
    rec.append_message(Message.user("go"))
    rec.append_message(Message(role="assistant", tool_calls=[call]))
    rec.append_message(Message.user("resumed"))
    rec.append_message(Message(role="assistant", content="fine"))

    loaded = load_session(rec.path)
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool", "user", "assistant"]
    assert loaded.messages[2].tool_call_id == "c1"


def test_empty_file_loads_as_empty_session(tmp_path: Path) -> None:
    path = tmp_path / f"{uuid.uuid4()}.jsonl"
    path.write_bytes(b"")
    loaded = load_session(path)
    assert loaded.messages == [] and loaded.warnings == [] and loaded.first_prompt == ""
    assert loaded.started_at is None and loaded.updated_at is not None


def test_large_record_loads_without_keeping_raw_lines(tmp_path: Path) -> None:
    size = 20 * 1024 * 1024
    big = "x" * size
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("read this file"))
    rec.append_message(Message.tool_result(ToolCall("c1", "read_file"), big))
    rec.append_message(Message(role="assistant", content="done"))
    del big

    tracemalloc.start()
    try:
        loaded = load_session(rec.path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert isinstance(loaded, LoadedSession)
    assert [m.role for m in loaded.messages] == ["user", "tool", "assistant"]
    assert len(loaded.messages[1].content) == size
    assert len(loaded.records) == 3
    # The record holds the same message object, not a second copy or the raw line.
    assert loaded.records[1].message is loaded.messages[1]
    assert not any(isinstance(value, (str, bytes)) and len(value) > 1000 for value in vars(loaded).values())
    assert not any(isinstance(value, (str, bytes)) and len(value) > 1000 for value in vars(loaded.records[1]).values())
    # Streaming line by line keeps the peak near two copies of the big line.
    assert peak < 2.5 * size
