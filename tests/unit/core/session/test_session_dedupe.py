"""Repeated large tool results are stored once: references on disk, whole texts after resume."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.history import Message, ToolCall
from app.core.session.dedupe import (
    DEDUPE_MIN_BYTES,
    MISSING_CONTENT_PLACEHOLDER,
    worth_deduplicating,
)
from app.core.session.recorder import SessionRecorder
from app.core.session.resume import load_session

BIG = "def parse(text):\n    return text.split()\n" * 100  # ~4 KB, a file read again
assert len(BIG) >= DEDUPE_MIN_BYTES


def _recorder(chats: Path) -> SessionRecorder:
    return SessionRecorder(chats, cwd=Path("/project"), version="0.1.0")


def _read(rec: SessionRecorder, call_id: str, output: str) -> None:
    call = ToolCall(call_id, "read_file", '{"path": "parser.py"}')
    rec.append_message(Message(role="assistant", tool_calls=[call]))
    rec.append_message(Message.tool_result(call, output))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_threshold_counts_utf8_bytes() -> None:
    assert not worth_deduplicating("x" * (DEDUPE_MIN_BYTES - 1))
    assert worth_deduplicating("x" * DEDUPE_MIN_BYTES)
    assert worth_deduplicating("解" * 700)  # 2,100 bytes in 700 characters
    assert not worth_deduplicating("解" * 600)


def test_a_repeated_result_is_written_once_and_restored_on_resume(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("read it twice"))
    _read(rec, "c1", BIG)
    _read(rec, "c2", BIG)
    _read(rec, "c3", BIG)

    lines = _lines(rec.path)
    results = [line for line in lines if line["type"] == "tool_result"]
    assert results[0]["message"]["content"] == BIG and "contentRef" not in results[0]
    for later in results[1:]:
        assert later["contentRef"] == results[0]["uuid"]
        assert "content" not in later["message"]
        assert later["message"]["tool_call_id"] in ("c2", "c3")
    assert rec.path.stat().st_size < 2 * len(BIG)

    loaded = load_session(rec.path)
    assert [m.content for m in loaded.messages if m.role == "tool"] == [BIG, BIG, BIG]
    assert [m.tool_call_id for m in loaded.messages if m.role == "tool"] == ["c1", "c2", "c3"]
    assert loaded.warnings == []


def test_small_or_different_results_are_written_in_full(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    _read(rec, "c1", "short")
    _read(rec, "c2", "short")
    _read(rec, "c3", BIG)
    _read(rec, "c4", BIG + "one more line\n")
    assert not any("contentRef" in line for line in _lines(rec.path))


def test_only_tool_results_are_deduplicated(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user(BIG))
    rec.append_message(Message.user(BIG))
    rec.append_message(Message(role="assistant", content=BIG))
    assert not any("contentRef" in line for line in _lines(rec.path))


def test_the_returned_record_keeps_the_whole_message(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    _read(rec, "c1", BIG)
    call = ToolCall("c2", "read_file", "{}")
    record = rec.append_message(Message.tool_result(call, BIG))
    assert record.content_ref is not None and record.message is not None and record.message.content == BIG


def test_a_missing_referenced_record_leaves_a_placeholder_and_a_warning(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    _read(rec, "c1", BIG)
    _read(rec, "c2", BIG)
    lines = rec.path.read_text(encoding="utf-8").splitlines(keepends=True)
    holder = json.loads(lines[1])["uuid"]
    del lines[1]  # the record holding the text is gone
    rec.path.write_text("".join(lines), encoding="utf-8")

    loaded = load_session(rec.path)
    [result] = [m for m in loaded.messages if m.role == "tool" and m.tool_call_id == "c2"]
    assert result.content == MISSING_CONTENT_PLACEHOLDER
    assert any(f"repeats the tool result of record {holder}" in w and "placeholder" in w for w in loaded.warnings)


def test_a_torn_referenced_record_leaves_a_placeholder_too(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    _read(rec, "c1", BIG)
    _read(rec, "c2", BIG)
    lines = rec.path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1][: len(lines[1]) // 2] + "\n"  # cut off mid-write, then the file went on
    rec.path.write_text("".join(lines), encoding="utf-8")

    loaded = load_session(rec.path)
    assert [m.content for m in loaded.messages if m.role == "tool"][-1] == MISSING_CONTENT_PLACEHOLDER
    assert any("could not be read" in w for w in loaded.warnings)
    assert any("placeholder" in w for w in loaded.warnings)


def test_after_resume_a_repeat_refers_to_the_earlier_process_record(tmp_path: Path) -> None:
    first = _recorder(tmp_path)
    _read(first, "c1", BIG)
    loaded = load_session(first.path)
    resumed = SessionRecorder.resume(first.path, cwd=Path("/project"), version="0.1.0")
    resumed.adopt(title=loaded.title, title_source=loaded.title_source, large_results=loaded.large_results)
    _read(resumed, "c2", BIG)

    lines = _lines(first.path)
    assert lines[-1]["contentRef"] == lines[1]["uuid"]
    assert [m.content for m in load_session(first.path).messages if m.role == "tool"] == [BIG, BIG]


def test_references_survive_a_compression_checkpoint(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    _read(rec, "c1", BIG)
    rec.append_system("chat_compression", {"info": {"newTokenCount": 10}, "compressedHistory": [{"role": "user", "content": "summary"}]})
    _read(rec, "c2", BIG)
    loaded = load_session(rec.path)
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool"]
    assert loaded.messages[-1].content == BIG
