"""Large tool results stay in the session file until read, and read back exactly as written."""

from __future__ import annotations

import json
import random
from pathlib import Path

from app.core.history import Message, ToolCall
from app.core.session.lazy_text import UNREADABLE_TEXT, LazyToolResult, is_unread
from app.core.session.recorder import SessionRecorder
from app.core.session.resume import load_session
from app.tui.widgets.transcript import entries_from_history

BIG = "def f(x):\n    return \"quoted\" + 'single' + x\\n  # café 中文 😀\n" * 600  # about 35 KB


def _session(tmp_path: Path, *outputs: str) -> SessionRecorder:
    rec = SessionRecorder(tmp_path, cwd=Path("/p"), version="1")
    rec.append_message(Message.user("read them"))
    for index, output in enumerate(outputs):
        call = ToolCall(f"c{index}", "read_file", json.dumps({"path": f"f{index}.py"}))
        rec.append_message(Message(role="assistant", content="", tool_calls=[call]))
        rec.append_message(Message.tool_result(call, output))
    rec.append_message(Message(role="assistant", content="done"))
    return rec


def test_a_large_result_is_left_in_the_file_and_reads_back_exactly(tmp_path: Path) -> None:
    texts = [
        BIG,
        BIG + "\\",  # ends in a backslash: the closing quote follows an escaped one
        BIG + '", "tool_call_id": "not the end',  # the end marker inside the text, escaped
        "\udc80 undecodable name " + BIG,  # a lone surrogate: orjson refuses it, json reads it
        "small",
    ]
    rec = _session(tmp_path, *texts)
    loaded = load_session(rec.path)
    results = [m for m in loaded.messages if m.role == "tool"]
    assert [is_unread(m) for m in results] == [True, True, True, True, False]
    eager = load_session(rec.path, leave_large_results=False)
    assert loaded.messages == eager.messages  # compared field by field, each text read for it
    assert [m.content for m in results] == texts
    assert all(type(m) is Message for m in results), "a text once read is a plain message again"


def test_an_unread_result_compares_and_copies_like_a_message(tmp_path: Path) -> None:
    rec = _session(tmp_path, BIG)
    [result] = [m for m in load_session(rec.path).messages if m.role == "tool"]
    assert isinstance(result, LazyToolResult) and is_unread(result)
    cleared = result.cleared("[cleared]")
    assert cleared.content == "[cleared]" and is_unread(result), "clearing does not read the old text"
    expected = Message.tool_result(ToolCall("c0", "read_file"), BIG)
    assert expected == result and result == expected
    assert expected != Message.tool_result(ToolCall("c0", "read_file"), BIG + "!")
    assert result.content == BIG


def test_a_repeated_result_shares_the_text_and_the_next_repeat_is_stored_once(tmp_path: Path) -> None:
    rec = _session(tmp_path, BIG, BIG)
    raw = rec.path.read_text(encoding="utf-8")
    assert raw.count("contentRef") == 1
    loaded = load_session(rec.path)
    first, second = [m for m in loaded.messages if m.role == "tool"]
    assert is_unread(first) and is_unread(second)
    assert first.content == second.content == BIG
    assert first.content is second.content, "read once for both"

    resumed = SessionRecorder.resume(rec.path, cwd=Path("/p"), version="1")
    resumed.adopt(title=None, title_source=None, large_results=loaded.large_results)
    resumed.append_message(Message.tool_result(ToolCall("c9", "read_file"), BIG))
    assert rec.path.read_text(encoding="utf-8").count("contentRef") == 2


def test_the_transcript_reads_an_output_only_when_it_is_shown(tmp_path: Path) -> None:
    rec = _session(tmp_path, BIG)
    messages = load_session(rec.path).messages
    [entry] = [e for e in entries_from_history(messages) if e.kind == "tool"]
    [result] = [m for m in messages if m.role == "tool"]
    assert entry.output == "" and is_unread(result)
    assert entry.shown_output() == BIG and entry.output == BIG and not is_unread(result)


def test_a_text_damaged_or_changed_in_place_reads_as_a_notice_and_the_file_is_not_touched(tmp_path: Path) -> None:
    rec = _session(tmp_path, BIG, BIG.replace("café", "cafe"))
    loaded = load_session(rec.path)
    first, second = [m for m in loaded.messages if m.role == "tool"]
    data = bytearray(rec.path.read_bytes())
    at = data.index(b"def f(x)")
    data[at - 1 : at] = b"#"  # the first text's opening quote overwritten
    second_at = data.index("cafe".encode())
    data[second_at : second_at + 1] = b"\xff"  # not UTF-8 any more
    rec.path.write_bytes(bytes(data))
    assert first.content == UNREADABLE_TEXT.format(reason="the file changed where the text was")
    assert second.content == UNREADABLE_TEXT.format(reason="not valid UTF-8")
    assert rec.path.read_bytes() == bytes(data)


def test_a_session_file_deleted_after_loading_still_reads_back(tmp_path: Path) -> None:
    rec = _session(tmp_path, BIG)
    [result] = [m for m in load_session(rec.path).messages if m.role == "tool"]
    rec.path.unlink()
    assert result.content == BIG


def test_another_writers_layout_is_read_whole(tmp_path: Path) -> None:
    line = {
        "message": {"content": BIG, "role": "tool", "tool_call_id": "c0", "name": "read_file"},
        "uuid": "u2", "parentUuid": None, "sessionId": "s", "timestamp": "2026-01-01T00:00:00.000Z",
        "type": "tool_result", "cwd": "/p", "version": "other",
    }
    call = {"uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-01-01T00:00:00.000Z", "type": "assistant",
            "cwd": "/p", "version": "other", "message": {"role": "assistant", "content": "", "tool_calls": [{"id": "c0", "name": "read_file", "arguments": "{}"}]}}
    path = tmp_path / "0b3f2a7c-0000-4000-8000-000000000001.jsonl"
    path.write_text(json.dumps(call) + "\n" + json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    [result] = [m for m in load_session(path).messages if m.role == "tool"]
    assert not is_unread(result) and result.content == BIG


def test_a_generated_session_loads_alike_left_in_the_file_or_not(tmp_path: Path) -> None:
    from bench.sessions import generate_session

    path = generate_session(tmp_path, 3_000_000, random.Random(7))
    lazy, eager = load_session(path), load_session(path, leave_large_results=False)
    assert sum(is_unread(m) for m in lazy.messages) > 10
    assert lazy.messages == eager.messages
    assert lazy.warnings == eager.warnings and lazy.session_usage == eager.session_usage
    assert {k: (v if isinstance(v, str) else v.read()) for k, v in lazy.large_results.items()} == eager.large_results
