"""The pure scheduling rules: the extraction cursor, the dream gates, the lock, the metadata."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.context.memory.schedule import (
    ExtractCursor,
    cursor_after_run,
    has_new_user_message,
    plan_extraction_start,
    raw_offset,
    read_cursor,
    start_offset,
    write_cursor,
)
from app.context.memory.schedule import (
    DreamGateInput,
    DreamSkipReason,
    evaluate_dream_gates,
)
from app.context.memory.schedule import (
    DREAM_LOCK_STALE_SECONDS,
    LockState,
    acquire_lock,
    clear_stale_lock,
    inspect_lock,
    lock_status,
    pid_alive,
    remove_lock,
)
from app.context.memory.schedule import MemoryMeta, read_meta, write_meta
from app.context.memory.schedule import count_sessions_since
from app.core.history import Message
from tests.unit.memory_support import DAY, NOW

HOUR = 3600.0

# The cursor.


def test_missing_cursor_reads_as_epoch(tmp_path: Path) -> None:
    assert read_cursor(tmp_path / "extract-cursor.json") == ExtractCursor(updated_at="1970-01-01T00:00:00.000Z")


def test_cursor_file_format(tmp_path: Path) -> None:
    path = tmp_path / "extract-cursor.json"
    write_cursor(path, ExtractCursor("2026-09-21T00:00:00.000Z", "s1", 12))
    assert path.read_text() == '{\n  "sessionId": "s1",\n  "processedOffset": 12,\n  "updatedAt": "2026-09-21T00:00:00.000Z"\n}\n'
    assert read_cursor(path) == ExtractCursor("2026-09-21T00:00:00.000Z", "s1", 12)
    write_cursor(path, ExtractCursor("2026-09-21T00:00:00.000Z"))
    assert json.loads(path.read_text()) == {"updatedAt": "2026-09-21T00:00:00.000Z"}


def test_damaged_cursor_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "extract-cursor.json"
    path.write_text('{"sessionId": 5, "processedOffset": -3}')
    assert read_cursor(path) == ExtractCursor()
    path.write_text("not json")
    assert read_cursor(path) == ExtractCursor()


def test_offset_belongs_to_its_session() -> None:
    cursor = ExtractCursor(session_id="s1", processed_offset=8)
    assert raw_offset(cursor, "s1") == 8
    assert raw_offset(cursor, "s2") == 0
    assert raw_offset(ExtractCursor(session_id="s1"), "s1") == 0


def test_offset_past_a_shrunken_history_starts_over() -> None:
    cursor = ExtractCursor(session_id="s1", processed_offset=40)
    assert start_offset(cursor, "s1", 12) == 0  # compaction shortened the history
    assert start_offset(cursor, "s1", 40) == 40
    assert start_offset(cursor, "s1", 50) == 40


def _history(*roles_and_texts: tuple[str, str]) -> list[Message]:
    return [Message(role=role, content=text) for role, text in roles_and_texts]  # type: ignore[arg-type]


def test_nothing_new_writes_the_cursor_past_the_history() -> None:
    history = _history(("user", "hi"), ("assistant", "hello"), ("user", "   "), ("assistant", "ok"))
    plan = plan_extraction_start(ExtractCursor(session_id="s1", processed_offset=2), "s1", history, NOW)
    assert plan.skip and plan.start == 2
    assert plan.skip_cursor == ExtractCursor("2026-09-21T14:13:20.000Z", "s1", 4)


def test_a_new_user_message_runs_from_the_start_offset() -> None:
    history = _history(("user", "hi"), ("assistant", "hello"), ("user", "remember I use uv"))
    plan = plan_extraction_start(ExtractCursor(session_id="s1", processed_offset=2), "s1", history, NOW)
    assert not plan.skip and plan.start == 2
    assert has_new_user_message(history, 0) and not has_new_user_message(history, 3)


def test_cursor_after_a_run() -> None:
    moved = cursor_after_run("s1", start=2, history_length=9, touched_topics=True, tools_ran=False, now=NOW)
    assert moved.processed_offset == 9 and moved.session_id == "s1"
    assert cursor_after_run("s1", start=2, history_length=9, touched_topics=False, tools_ran=True, now=NOW).processed_offset == 9
    # A run that saved nothing and ran no tool still read those messages: they are not read again.
    assert cursor_after_run("s1", start=2, history_length=9, touched_topics=False, tools_ran=False, now=NOW).processed_offset == 9


# The dream gates.


def _gate(**changes: object) -> DreamGateInput:
    values: dict[str, object] = {"now": NOW, "session_id": "s-now", "last_dream_at": NOW - 2 * DAY, "last_dream_session_id": "s-old"}
    values.update(changes)
    return DreamGateInput(**values)  # type: ignore[arg-type]


class Counter:
    def __init__(self, sessions: int) -> None:
        self.sessions, self.calls = sessions, 0

    def __call__(self) -> int:
        self.calls += 1
        return self.sessions


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"enabled": False}, DreamSkipReason.DISABLED),
        ({"memory_pressure": "hard"}, DreamSkipReason.MEMORY_PRESSURE),
        ({"memory_pressure": "critical"}, DreamSkipReason.MEMORY_PRESSURE),
        ({"last_dream_session_id": "s-now"}, DreamSkipReason.SAME_SESSION),
        ({"last_dream_at": NOW - 23 * HOUR}, DreamSkipReason.MIN_HOURS),
        ({"last_session_scan_at": NOW - 9 * 60}, DreamSkipReason.SCAN_THROTTLED),
    ],
)
def test_cheap_gates_fail_before_any_scan(changes: dict, reason: DreamSkipReason) -> None:
    counter = Counter(10)
    decision = evaluate_dream_gates(_gate(**changes), counter)
    assert decision.reason is reason and not decision.run
    assert counter.calls == 0 and decision.scanned_at is None


def test_gates_run_in_order() -> None:
    everything_wrong = _gate(enabled=False, memory_pressure="hard", last_dream_session_id="s-now", last_dream_at=NOW)
    assert evaluate_dream_gates(everything_wrong, Counter(0)).reason is DreamSkipReason.DISABLED
    assert evaluate_dream_gates(_gate(memory_pressure="hard", last_dream_session_id="s-now"), Counter(0)).reason is DreamSkipReason.MEMORY_PRESSURE
    assert evaluate_dream_gates(_gate(last_dream_session_id="s-now", last_dream_at=NOW), Counter(0)).reason is DreamSkipReason.SAME_SESSION
    assert evaluate_dream_gates(_gate(last_dream_at=NOW, last_session_scan_at=NOW), Counter(0)).reason is DreamSkipReason.MIN_HOURS


def test_too_few_sessions_records_the_scan() -> None:
    decision = evaluate_dream_gates(_gate(), Counter(4))
    assert decision.reason is DreamSkipReason.MIN_SESSIONS
    assert decision.scanned_at == NOW and decision.sessions_since_dream == 4


def test_never_dreamed_passes_the_hours_gate() -> None:
    assert evaluate_dream_gates(_gate(last_dream_at=None, last_dream_session_id=None), Counter(5)).run


def test_scan_older_than_ten_minutes_scans_again() -> None:
    counter = Counter(5)
    assert evaluate_dream_gates(_gate(last_session_scan_at=NOW - 601), counter).run and counter.calls == 1


def test_lock_and_running_gates() -> None:
    assert evaluate_dream_gates(_gate(lock=LockState.HELD), Counter(5)).reason is DreamSkipReason.LOCKED
    stale = evaluate_dream_gates(_gate(lock=LockState.STALE), Counter(5))
    assert stale.run and stale.remove_lock
    healed = evaluate_dream_gates(_gate(lock=LockState.HELD, lock_release_failed=True), Counter(5))
    assert healed.run and healed.remove_lock
    assert evaluate_dream_gates(_gate(running=True), Counter(5)).reason is DreamSkipReason.RUNNING
    clear = evaluate_dream_gates(_gate(), Counter(5))
    assert clear.run and not clear.remove_lock and clear.scanned_at == NOW


def test_counting_sessions(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    ids = ["0f8c3a1e-6a3b-4c1d-9e2f-1a2b3c4d5e6f", "1f8c3a1e-6a3b-4c1d-9e2f-1a2b3c4d5e6f", "2f8c3a1e6a3b4c1d9e2f1a2b3c4d5e6f", "current-0000-0000-0000-000000000000"]
    for index, session in enumerate(ids):
        path = chats / f"{session}.jsonl"
        path.write_text("{}\n")
        os.utime(path, (NOW - index * DAY, NOW - index * DAY))
    (chats / "notes.jsonl").write_text("")
    (chats / "0f8c3a1e-6a3b-4c1d-9e2f-1a2b3c4d5e6f.json").write_text("")
    assert count_sessions_since(chats, None, ids[0]) == 2  # the current one and odd names left out
    assert count_sessions_since(chats, NOW - 1.5 * DAY, None) == 2
    assert count_sessions_since(tmp_path / "missing", None, None) == 0


# The lock.


def _always(alive: bool):  # type: ignore[no-untyped-def]
    return lambda pid: alive


def test_lock_status_rules() -> None:
    assert lock_status(None, None, NOW).state is LockState.FREE
    live = lock_status("4242", NOW - 60, NOW, _always(True))
    assert (live.state, live.pid, live.age) == (LockState.HELD, 4242, 60)
    assert lock_status("4242", NOW - 60, NOW, _always(False)).state is LockState.STALE  # dead holder
    assert lock_status("4242", NOW - DREAM_LOCK_STALE_SECONDS - 1, NOW, _always(True)).state is LockState.STALE  # over an hour
    assert lock_status("4242", NOW - DREAM_LOCK_STALE_SECONDS, NOW, _always(True)).state is LockState.HELD
    assert lock_status("not a pid", NOW, NOW, _always(True)).state is LockState.STALE


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_lock_held_by_a_dead_process_is_cleared(tmp_path: Path) -> None:
    lock = tmp_path / "consolidation.lock"
    assert acquire_lock(lock, _dead_pid())
    now = lock.stat().st_mtime
    assert clear_stale_lock(lock, now).state is LockState.STALE
    assert not lock.exists()


def test_a_live_lock_blocks_and_stays(tmp_path: Path) -> None:
    lock = tmp_path / "consolidation.lock"
    assert acquire_lock(lock)
    assert lock.read_text() == str(os.getpid())
    now = lock.stat().st_mtime
    assert inspect_lock(lock, now).state is LockState.HELD
    assert not acquire_lock(lock)  # exclusive create
    assert clear_stale_lock(lock, now).state is LockState.HELD and lock.exists()


def test_an_old_lock_is_cleared_even_with_a_live_pid(tmp_path: Path) -> None:
    lock = tmp_path / "consolidation.lock"
    acquire_lock(lock)
    old = NOW - 2 * HOUR
    os.utime(lock, (old, old))
    assert clear_stale_lock(lock, NOW).state is LockState.STALE and not lock.exists()
    assert acquire_lock(lock) and remove_lock(lock) and remove_lock(lock)


def test_pid_alive() -> None:
    assert pid_alive(os.getpid())
    assert not pid_alive(0) and not pid_alive(-1)


# Metadata.


def test_meta_round_trip_keeps_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    path.write_text(json.dumps({"lastDreamAt": "2026-09-20T00:00:00.000Z", "futureField": [1, 2], "schemaVersion": 1}))
    meta = read_meta(path)
    assert meta.last_dream_at == 1_789_862_400.0
    write_meta(path, meta.touched(NOW))
    data = json.loads(path.read_text())
    assert data["futureField"] == [1, 2] and data["updatedAt"] == "2026-09-21T14:13:20.000Z"
    assert data["lastDreamAt"] == "2026-09-20T00:00:00.000Z"
    assert path.read_text().endswith("}\n") and '\n  "' in path.read_text()


def test_missing_meta_is_empty(tmp_path: Path) -> None:
    assert read_meta(tmp_path / "meta.json") == MemoryMeta()
