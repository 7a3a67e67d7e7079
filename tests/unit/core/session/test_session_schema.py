"""The record schema: spec subtypes, tolerated gaps, and records this build cannot read."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from app.core.history import Message
from app.core.session.listing import list_sessions
from app.core.session.recorder import SessionRecorder
from app.core.session.records import (
    RECORD_SCHEMA_VERSION,
    SUBTYPE_CUSTOM_TITLE,
    SUBTYPE_NOTIFICATION,
    SUBTYPE_SLASH_COMMAND,
    NewerRecord,
    Record,
)
from app.core.session.resume import MAX_LINE_WARNINGS, load_session


def _recorder(chats: Path) -> SessionRecorder:
    return SessionRecorder(chats, cwd=Path("/project"), version="0.1.0")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _user(n: int, **extra) -> dict:  # type: ignore[no-untyped-def]
    data = {
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n else None,
        "sessionId": "s",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "type": "user",
        "cwd": "/p",
        "version": "0.1.0",
        "message": {"role": "user", "content": f"prompt {n}"},
    }
    data.update(extra)
    return data


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_the_spec_subtypes_have_their_spec_names() -> None:
    assert (SUBTYPE_SLASH_COMMAND, SUBTYPE_NOTIFICATION, SUBTYPE_CUSTOM_TITLE) == ("slash_command", "notification", "custom_title")


def test_slash_command_notification_and_title_records_round_trip(tmp_path: Path) -> None:
    rec = _recorder(tmp_path)
    rec.append_message(Message.user("hi"))
    rec.append_system(SUBTYPE_SLASH_COMMAND, {"phase": "invocation", "rawCommand": "/context detail"})
    rec.append_system(SUBTYPE_NOTIFICATION, {"level": "warning", "message": "The answer was cut off."})
    rec.append_title("Fix the parser", "manual")

    lines = _lines(rec.path)
    assert [(line["type"], line.get("subtype")) for line in lines] == [
        ("user", None),
        ("system", "slash_command"),
        ("system", "notification"),
        ("system", "custom_title"),
    ]
    assert lines[1]["systemPayload"] == {"phase": "invocation", "rawCommand": "/context detail"}
    assert lines[3]["systemPayload"] == {"customTitle": "Fix the parser", "titleSource": "manual"}
    assert [r.subtype for r in load_session(rec.path).records][1:] == ["slash_command", "notification", "custom_title"]
    assert "schemaVersion" not in lines[0] and "contentRef" not in lines[0]


def test_a_missing_parent_uuid_is_the_start_of_a_chain(tmp_path: Path) -> None:
    row = _user(1)
    del row["parentUuid"]
    assert Record.from_json(row).parent_uuid is None
    loaded = load_session(_write(tmp_path / f"{uuid.uuid4()}.jsonl", [row, _user(2)]))
    assert [m.content for m in loaded.messages] == ["prompt 1", "prompt 2"] and loaded.warnings == []


def test_records_of_a_newer_schema_are_skipped_with_a_warning_and_the_rest_kept(tmp_path: Path) -> None:
    newer = _user(2, schemaVersion=RECORD_SCHEMA_VERSION + 1, version="9.0.0")
    with pytest.raises(NewerRecord, match=r"newer agentctx-tui \(9.0.0\) in record schema 2"):
        Record.from_json(newer)
    current = _user(3, schemaVersion=RECORD_SCHEMA_VERSION)
    path = _write(tmp_path / f"{uuid.uuid4()}.jsonl", [_user(1), newer, current])

    loaded = load_session(path)
    assert [m.content for m in loaded.messages] == ["prompt 1", "prompt 3"]
    [warning] = loaded.warnings
    assert warning.startswith(f"line 2 of {path} could not be read (written by a newer agentctx-tui")
    assert warning.endswith("and was skipped")


def test_records_of_an_unknown_type_are_skipped_with_a_warning(tmp_path: Path) -> None:
    attachment = _user(2, type="attachment")
    path = _write(tmp_path / f"{uuid.uuid4()}.jsonl", [_user(1), attachment, _user(3)])
    loaded = load_session(path)
    assert [m.content for m in loaded.messages] == ["prompt 1", "prompt 3"]
    assert loaded.warnings == [f"line 2 of {path} could not be read (unknown record type 'attachment') and was skipped"]


def test_system_records_of_unknown_subtypes_are_kept_quietly(tmp_path: Path) -> None:
    # A subtype only records an event; one this build does not know changes nothing it rebuilds.
    event = _user(2, type="system", subtype="ui_telemetry", systemPayload={"x": 1})
    del event["message"]
    loaded = load_session(_write(tmp_path / f"{uuid.uuid4()}.jsonl", [_user(1), event]))
    assert loaded.warnings == [] and loaded.records[-1].subtype == "ui_telemetry"


def test_many_bad_lines_give_a_bounded_number_of_warnings(tmp_path: Path) -> None:
    rows = [_user(0)] + [_user(n, type="future_kind") for n in range(1, 31)]
    loaded = load_session(_write(tmp_path / f"{uuid.uuid4()}.jsonl", rows))
    assert len(loaded.warnings) == MAX_LINE_WARNINGS + 1
    assert loaded.warnings[-1].startswith("20 more line(s) of ")
    assert loaded.problem_lines == 30


def test_a_directory_named_like_a_session_is_not_listed(tmp_path: Path) -> None:
    kept = _recorder(tmp_path)
    kept.append_message(Message.user("real"))
    (tmp_path / f"{uuid.uuid4()}.jsonl").mkdir()
    assert [s.session_id for s in list_sessions(tmp_path)] == [kept.session_id]
