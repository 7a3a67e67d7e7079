"""The branch rules of a rewind: which messages one can go back to, and the view a rewind record leaves on resume."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.history import Message, ToolCall
from app.core.session.recorder import SessionRecorder
from app.core.session.records import SUBTYPE_MICRO_COMPACTION, SUBTYPE_REWIND
from app.core.session.resume import load_session
from app.core.session.rewind import rewind_points, rewound


def _conversation(recorder: SessionRecorder) -> list[Message]:
    messages = [
        Message.user("fix the parser"),
        Message(role="assistant", tool_calls=[ToolCall("c1", "read_file", json.dumps({"path": "p.py"}))]),
        Message(role="tool", content="def parse(): ...", tool_call_id="c1", name="read_file"),
        Message(role="assistant", content="Fixed."),
        Message.user("now add tests"),
        Message(role="assistant", content="Added."),
        Message.user("and a README line"),
        Message(role="assistant", content="Done."),
    ]
    for message in messages:
        recorder.append_message(message)
    return messages


def test_points_are_the_persons_messages_newest_first_with_time_and_uuid(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, cwd=tmp_path, version="test")
    history = _conversation(recorder)
    loaded = load_session(recorder.path)
    points = rewind_points(history, loaded)
    assert [(p.text, p.index, p.ordinal) for p in points] == [("and a README line", 6, 2), ("now add tests", 4, 1), ("fix the parser", 0, 0)]
    assert all(p.timestamp and p.uuid for p in points)
    assert {r.uuid for r in loaded.records if r.type == "user"} == {p.uuid for p in points}


def test_a_summary_or_reminder_is_no_point_but_still_counts_for_the_place(tmp_path: Path) -> None:
    history = [
        Message.user("<state_snapshot>the story so far</state_snapshot>"),
        Message(role="assistant", content="ok"),
        Message.user("<system-reminder>\nsomething</system-reminder>"),
        Message.user("go on"),
    ]
    points = rewind_points(history)
    assert [(p.text, p.ordinal, p.timestamp) for p in points] == [("go on", 2, None)]


def test_a_record_that_disagrees_with_the_live_history_gives_no_time(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, cwd=tmp_path, version="test")
    recorder.append_message(Message.user("something else"))
    points = rewind_points([Message.user("what the agent holds")], load_session(recorder.path))
    assert points[0].timestamp is None and points[0].uuid is None


def test_the_rewind_record_leaves_the_view_before_the_message_on_resume(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, cwd=tmp_path, version="test")
    history = _conversation(recorder)
    point = next(p for p in rewind_points(history) if p.text == "now add tests")
    recorder.append_system(SUBTYPE_REWIND, point.payload())
    loaded = load_session(recorder.path)
    assert [m.content for m in loaded.messages] == [m.content for m in history[:4]]
    assert loaded.last_usage is None
    # The next message continues on the branch; the rewound turns stay in the record.
    recorder.append_message(Message.user("add tests, but with pytest"))
    loaded = load_session(recorder.path)
    assert [m.content for m in loaded.messages][-1] == "add tests, but with pytest"
    assert "now add tests" not in [m.content for m in loaded.messages]
    assert sum(1 for r in loaded.records if r.message and r.message.content == "now add tests") == 1


def test_a_rewind_after_a_micro_compaction_still_finds_its_message(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, cwd=tmp_path, version="test")
    history = _conversation(recorder)
    recorder.append_system(SUBTYPE_MICRO_COMPACTION, {"clearedToolCallIds": ["c1"], "placeholder": "[cleared]"})
    point = next(p for p in rewind_points(history) if p.text == "and a README line")
    recorder.append_system(SUBTYPE_REWIND, point.payload())
    loaded = load_session(recorder.path)
    assert [m.content for m in loaded.messages] == ["fix the parser", "", "[cleared]", "Fixed.", "now add tests", "Added."]


def test_a_rewind_naming_a_message_the_view_does_not_hold_is_a_warning_and_changes_nothing(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, cwd=tmp_path, version="test")
    history = _conversation(recorder)
    recorder.append_system(SUBTYPE_REWIND, {"userOrdinal": 1, "userSha256": "0" * 64})
    recorder.append_system(SUBTYPE_REWIND, {"userOrdinal": 7, "userSha256": "0" * 64})
    loaded = load_session(recorder.path)
    assert len(loaded.messages) == len(history)
    assert len(loaded.warnings) == 2 and "names a message this view does not hold" in loaded.warnings[0]


def test_rewound_refuses_malformed_payloads() -> None:
    messages = [Message.user("a")]
    for payload in ({}, {"userOrdinal": True, "userSha256": "x"}, {"userOrdinal": "0", "userSha256": "x"}, {"userOrdinal": -1, "userSha256": "x"}):
        assert rewound(messages, payload) is None
