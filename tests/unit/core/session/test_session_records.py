"""Record: camelCase JSON form, round trips, and strict-but-tolerant parsing."""

from __future__ import annotations

import json
import re

import pytest

from app.core.history import Message, ToolCall, Usage
from app.core.session.records import Record, now_timestamp, parse_timestamp, record_type_for


def _record(**overrides) -> Record:
    fields = dict(
        uuid="u-1",
        parent_uuid=None,
        session_id="0123456789abcdef0123456789abcdef",
        timestamp="2025-01-02T03:04:05.678Z",
        type="user",
        cwd="/project",
        version="0.1.0",
        message=Message.user("hello"),
    )
    fields.update(overrides)
    return Record(**fields)


def _round_trip(record: Record) -> Record:
    line = record.to_json_line()
    assert line.endswith("\n") and line.count("\n") == 1
    return Record.from_json(json.loads(line))


def test_user_record_round_trips_with_camel_case_names() -> None:
    record = _record(git_branch="main", prompt_id="p1")
    data = json.loads(record.to_json_line())
    assert data["parentUuid"] is None
    assert data["sessionId"] == record.session_id
    assert data["gitBranch"] == "main"
    assert data["message"] == {"role": "user", "content": "hello"}
    assert _round_trip(record) == record


def test_assistant_record_with_tool_calls_usage_and_model_round_trips() -> None:
    message = Message(
        role="assistant",
        content="let me look",
        tool_calls=[ToolCall(id="c1", name="read_file", arguments='{"path": "a.py"}')],
        reasoning="thinking…",
    )
    record = _record(
        type="assistant",
        parent_uuid="u-0",
        message=message,
        usage=Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15, reasoning_tokens=2, cached_tokens=3),
        model="qwen3-coder-plus",
        context_window_size=1_000_000,
    )
    data = json.loads(record.to_json_line())
    assert data["usageMetadata"]["prompt_tokens"] == 10
    assert data["contextWindowSize"] == 1_000_000
    assert _round_trip(record) == record


def test_tool_result_record_round_trips() -> None:
    call = ToolCall(id="c1", name="shell")
    record = _record(type="tool_result", message=Message.tool_result(call, "boom", is_error=True))
    assert _round_trip(record) == record


def test_system_record_round_trips_without_message() -> None:
    record = _record(type="system", subtype="slash_command", message=None, system_payload={"phase": "invocation"})
    data = json.loads(record.to_json_line())
    assert "message" not in data
    assert data["systemPayload"] == {"phase": "invocation"}
    assert _round_trip(record) == record


def test_none_valued_optional_fields_are_omitted() -> None:
    data = json.loads(_record().to_json_line())
    for key in ("subtype", "gitBranch", "usageMetadata", "model", "systemPayload", "contextWindowSize", "promptId"):
        assert key not in data


def test_metadata_is_written_before_the_message() -> None:
    line = _record(type="assistant", model="m", message=Message(role="assistant", content="x" * 1000)).to_json_line()
    assert line.index('"timestamp"') < line.index('"message"')
    assert line.index('"type"') < line.index('"message"')


def test_non_ascii_is_written_as_is_and_lone_surrogates_survive() -> None:
    assert "héllo ✓" in _record(message=Message.user("héllo ✓")).to_json_line()
    record = _record(message=Message.user("bad name \udcff"))
    line = record.to_json_line()
    line.encode("utf-8")  # still writable as UTF-8
    assert _round_trip(record).message.content == "bad name \udcff"


def test_unknown_extra_fields_are_ignored() -> None:
    data = _record().to_dict() | {"agentId": "a", "isSidechain": False}
    assert Record.from_json(data) == _record()


def test_missing_parent_uuid_reads_as_none() -> None:
    data = _record().to_dict()
    del data["parentUuid"]
    assert Record.from_json(data).parent_uuid is None


@pytest.mark.parametrize("key", ["uuid", "sessionId", "timestamp", "type", "cwd", "version"])
def test_missing_required_field_is_a_clear_error(key: str) -> None:
    data = _record().to_dict()
    del data[key]
    with pytest.raises(ValueError, match=f"missing required field '{key}'"):
        Record.from_json(data)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"type": "robot"}, "unknown record type 'robot'"),
        ({"message": {"role": "robot", "content": "x"}}, "unknown message role 'robot'"),
        ({"message": None}, "missing required field 'message'"),
        ({"message": "hi"}, "field 'message' must be an object"),
        ({"message": {"role": "user", "tool_calls": ["x"]}}, "field 'message' is malformed"),
        ({"uuid": 5}, "field 'uuid' must be a string"),
        ({"parentUuid": 5}, "parentUuid"),
        ({"usageMetadata": {"prompt_tokens": "many"}}, "usageMetadata"),
        ({"systemPayload": [1]}, "systemPayload"),
        ({"contextWindowSize": "big"}, "contextWindowSize"),
    ],
)
def test_invalid_fields_are_clear_errors(change: dict, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        Record.from_json(_record().to_dict() | change)


def test_non_object_is_rejected() -> None:
    with pytest.raises(ValueError, match="not a JSON object"):
        Record.from_json([1, 2])


def test_record_type_follows_message_role() -> None:
    assert record_type_for(Message.user("x")) == "user"
    assert record_type_for(Message(role="assistant")) == "assistant"
    assert record_type_for(Message.tool_result(ToolCall("c", "n"), "o")) == "tool_result"
    assert record_type_for(Message.system("s")) == "system"


def test_timestamps_are_utc_with_milliseconds_and_z() -> None:
    stamp = now_timestamp()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    parsed = parse_timestamp(stamp)
    assert parsed is not None and parsed.utcoffset().total_seconds() == 0
    assert parse_timestamp("not a time") is None
    assert parse_timestamp(None) is None
