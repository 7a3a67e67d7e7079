"""The session reader's two parsers (orjson for ordinary lines, json for what orjson refuses or for very
long lines) must read every line the same way."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.core.history import Message, ToolCall
from app.core.session.reader import iter_records, parse_line_bytes, parse_line_text
from app.core.session.recorder import SessionRecorder
from app.core.session.records import Record
from app.core.session.resume import load_session


def _base(**extra: object) -> dict[str, object]:
    return {
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "type": "user",
        "cwd": "/p",
        "version": "1",
        "message": {"role": "user", "content": "hi"},
        **extra,
    }


LINES = [
    json.dumps(_base()).encode(),
    # The recorder escapes lone surrogates (undecodable file names) as ASCII; orjson refuses them.
    json.dumps(_base(message={"role": "user", "content": "name \udc80.txt"}), ensure_ascii=True).encode(),
    # Python's json writes and reads NaN; orjson does not.
    b'{"uuid": "u1", "sessionId": "s", "timestamp": "t", "type": "user", "cwd": "/", "version": "1", '
    b'"contextWindowSize": NaN, "message": {"role": "user", "content": "x"}}',
    "{\"uuid\": \"u1\", \"broken".encode(),
    b'{"uuid": "u\xff\xfe", "type": "user"}',
    b"[1, 2, 3]",
    b"[" * 5000 + b"]" * 5000,
    json.dumps(_base(type="robot")).encode(),
    json.dumps(_base(message={"role": "user", "content": "caf\u00e9 \u4e2d\u6587 \U0001f600"}), ensure_ascii=False).encode(),
]


@pytest.mark.parametrize("raw", LINES, ids=range(len(LINES)))
def test_orjson_and_json_read_a_line_alike(raw: bytes) -> None:
    fast = parse_line_bytes(raw, 7)
    slow = parse_line_text(raw.decode("utf-8", "surrogateescape"), 7)
    if b"\xff" in raw:
        assert fast.problem == "not valid UTF-8"
        return
    assert (fast.record, fast.problem) == (slow.record, slow.problem)


def test_an_integer_beyond_64_bits_is_where_they_differ() -> None:
    # orjson reads it as a float; no field this program writes can hold one, and the line is then
    # reported as unusable rather than misread.
    raw = json.dumps(_base(contextWindowSize=2**70)).encode()
    assert parse_line_bytes(raw, 1).problem == "field 'contextWindowSize' must be an integer"
    assert parse_line_text(raw.decode(), 1).record is not None


def test_a_line_longer_than_orjson_is_given_reads_alike(tmp_path: Path) -> None:
    rec = SessionRecorder(tmp_path, cwd=Path("/p"), version="1")
    call = ToolCall("c1", "read_file", "{}")
    rec.append_message(Message(role="assistant", content="", tool_calls=[call]))
    big = "line é\n" * 400_000  # about 3 MB of UTF-8 in one record
    rec.append_message(Message.tool_result(call, big))
    rec.append_message(Message.tool_result(ToolCall("c2", "read_file", "{}"), "name \udc80"))
    with rec.path.open("ab") as handle:
        handle.write(b'{"uuid": "\xff' + b"x" * 2_000_000 + b'"}\n')  # long and not UTF-8
    results = list(iter_records(rec.path))
    assert [r.problem for r in results] == [None, None, None, "not valid UTF-8"]
    loaded = load_session(rec.path)
    assert loaded.messages[1].content == big
    assert loaded.messages[2].content == "name \udc80"


def _outcome(data: object) -> object:
    try:
        return Record.from_json(data)
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"


def _checked_outcome(data: object) -> object:
    try:
        return Record._checked(data)
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"


def test_the_quick_path_for_well_formed_records_agrees_with_the_field_by_field_checks() -> None:
    # Every field of a full record, in turn, given each kind of wrong (or right) value.
    full = _base(
        type="assistant",
        subtype="x",
        gitBranch="main",
        promptId="p",
        model="m",
        contextWindowSize=1000,
        usageMetadata={"prompt_tokens": 3, "completion_tokens": "4"},
        message={"role": "assistant", "content": "ok", "tool_calls": [{"id": "c", "name": "n"}]},
        systemPayload={"a": 1},
        contentRef="u0",
        schemaVersion=1,
    )
    values: list[object] = [None, "text", 7, True, 1.5, [], {}, {"role": "user"}, 2, "system", "robot"]
    cases = [full, {k: v for k, v in full.items() if k != "message"}]
    for key in full:
        for value in values:
            cases.append({**full, key: value})
        cases.append({k: v for k, v in full.items() if k != key})
    rng = random.Random(5)
    for _ in range(300):
        case = dict(full)
        for key in rng.sample(sorted(full), 3):
            case[key] = rng.choice(values)
        cases.append(case)
    for case in cases:
        assert _outcome(case) == _checked_outcome(case), case


def test_lines_across_block_edges_come_out_whole(tmp_path: Path) -> None:
    from app.core.session.reader import _lines

    rng = random.Random(11)
    path = tmp_path / "s.jsonl"
    for trial in range(60):
        block = rng.choice([8, 16, 17, 64])
        sizes = [rng.choice([0, 1, 5, block - 1, block, block + 1, 3 * block]) for _ in range(rng.randrange(1, 12))]
        data = b"".join(bytes([97 + n % 26]) * size + b"\n" for n, size in enumerate(sizes))
        if trial % 3 == 0:
            data = data[:-1]  # the last line cut off
        path.write_bytes(data)
        assert [bytes(line) for line in _lines(path, block)] == data.splitlines(keepends=True), (block, sizes)


def test_after_the_first_load_in_a_process_nothing_stays_frozen(tmp_path: Path) -> None:
    import gc

    rec = SessionRecorder(tmp_path, cwd=Path("/p"), version="1")
    rec.append_message(Message.user("hello"))
    load_session(rec.path)  # the first in this process freezes what is alive; a later one must not
    # Another session picked in the same process: what the first load froze (an old runtime that
    # may now be an unreachable cycle) is back with the collector, and stays there.
    load_session(rec.path)
    assert gc.get_freeze_count() == 0
    load_session(rec.path)
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()
