"""When the background memory tasks run, and what they are doing, in words.

Whether to start a dream now (``evaluate_dream_gates``): the gates, in order; the first that fails names the reason.

Pure over its inputs: the caller passes the clock, the metadata, the lock's
state and a function that counts sessions, which is only called when every
cheaper gate has passed (it reads a directory).

Counting the sessions recorded since the last dream (one of the dream's gates).

A task's state (``TaskState``) in words (``describe_task``, ``memory_activity``): the panel's status strip, the status line, the CLI.

A task's own state says what happened in this session; ``meta.json`` remembers the
last run of any session, so a fresh session can still say when memory last changed.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from app.context.memory.statefile import LockState

SESSION_FILE = re.compile(r"^[0-9a-fA-F-]{32,36}\.jsonl$")


def count_sessions_since(chats_dir: Path, since: float | None, current_session_id: str | None) -> int:
    """Session transcripts modified after ``since`` (all of them when None), the current one left out."""
    try:
        listing = list(os.scandir(chats_dir))
    except OSError:
        return 0
    count = 0
    for item in listing:
        if not SESSION_FILE.match(item.name) or item.name == f"{current_session_id}.jsonl":
            continue
        try:
            mtime = item.stat().st_mtime
        except OSError:
            continue
        if since is None or mtime > since:
            count += 1
    return count


DEFAULT_AUTO_DREAM_MIN_HOURS = 24
DEFAULT_AUTO_DREAM_MIN_SESSIONS = 5
SESSION_SCAN_INTERVAL_SECONDS = 600  # SESSION_SCAN_INTERVAL_MS = 600 000
PRESSURE_LEVELS_THAT_BLOCK = frozenset({"hard", "critical"})


class DreamSkipReason(StrEnum):
    DISABLED = "disabled"
    MEMORY_PRESSURE = "memory_pressure"
    SAME_SESSION = "same_session"
    MIN_HOURS = "min_hours"
    SCAN_THROTTLED = "scan_throttled"
    MIN_SESSIONS = "min_sessions"
    LOCKED = "locked"
    RUNNING = "running"


@dataclass(frozen=True)
class DreamGateInput:
    now: float  # seconds since the epoch
    session_id: str
    enabled: bool = True
    memory_pressure: str = "normal"  # normal | moderate | hard | critical
    last_dream_at: float | None = None
    last_dream_session_id: str | None = None
    last_session_scan_at: float | None = None
    lock: LockState = LockState.FREE
    lock_release_failed: bool = False  # an earlier release failed: our own lock may be stuck
    running: bool = False  # a memory task is in flight for this project
    min_hours: float = DEFAULT_AUTO_DREAM_MIN_HOURS
    min_sessions: int = DEFAULT_AUTO_DREAM_MIN_SESSIONS
    scan_interval: float = SESSION_SCAN_INTERVAL_SECONDS


@dataclass(frozen=True)
class DreamGateDecision:
    reason: DreamSkipReason | None  # None: go ahead
    scanned_at: float | None = None  # set when sessions were counted: record it as the last scan
    sessions_since_dream: int | None = None
    remove_lock: bool = False  # the lock file must go first (stale, or stuck by a failed release)

    @property
    def run(self) -> bool:
        return self.reason is None


def evaluate_dream_gates(gate: DreamGateInput, count_sessions: Callable[[], int]) -> DreamGateDecision:
    """Run the gates in order: disabled, memory pressure, same session, hours since the
    last dream, scan throttle, sessions since the last dream, the lock, a task in flight."""
    if not gate.enabled:
        return DreamGateDecision(DreamSkipReason.DISABLED)
    if gate.memory_pressure in PRESSURE_LEVELS_THAT_BLOCK:
        return DreamGateDecision(DreamSkipReason.MEMORY_PRESSURE)
    if gate.last_dream_session_id is not None and gate.last_dream_session_id == gate.session_id:
        return DreamGateDecision(DreamSkipReason.SAME_SESSION)
    if gate.last_dream_at is not None and gate.now - gate.last_dream_at < gate.min_hours * 3600:
        return DreamGateDecision(DreamSkipReason.MIN_HOURS)
    if gate.last_session_scan_at is not None and gate.now - gate.last_session_scan_at < gate.scan_interval:
        return DreamGateDecision(DreamSkipReason.SCAN_THROTTLED)
    sessions = count_sessions()
    if sessions < gate.min_sessions:
        return DreamGateDecision(DreamSkipReason.MIN_SESSIONS, scanned_at=gate.now, sessions_since_dream=sessions)
    # A failed release leaves a fresh lock with a live PID (ours) that would block
    # every later dream; forcing it off heals that within the session.
    remove_lock = gate.lock_release_failed or gate.lock is LockState.STALE
    if gate.lock is LockState.HELD and not gate.lock_release_failed:
        return DreamGateDecision(DreamSkipReason.LOCKED, gate.now, sessions)
    if gate.running:
        return DreamGateDecision(DreamSkipReason.RUNNING, gate.now, sessions, remove_lock)
    return DreamGateDecision(None, gate.now, sessions, remove_lock)


@dataclass
class TaskState:
    """What a background memory task is doing, for the status strip."""

    name: str
    state: str = "idle"  # idle | queued | running | done | skipped | failed
    detail: str = ""
    last_run_at: float | None = None


# The dream gates report a reason code; the person reads a reason.
DREAM_SKIP_WORDS = {
    "disabled": "dreaming is off in settings",
    "memory_pressure": "the system is short of memory",
    "same_session": "this session already consolidated",
    "min_hours": "less than a day since the last consolidation",
    "scan_throttled": "sessions were counted less than ten minutes ago",
    "min_sessions": "too few sessions since the last consolidation",
    "locked": "another process is consolidating",
    "running": "another memory task is running",
}
RUN_STATUS_WORDS = {"updated": "memories changed", "noop": "nothing changed", "failed": "stopped before it finished"}


def clock_time(moment: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(moment))


def describe_task(task: TaskState, *, last_run_at: float | None = None, last_status: str | None = None) -> str:
    """One line for a task: running, queued, failed and why, skipped and why, or its last run.

    ``last_run_at`` / ``last_status`` come from meta.json and stand in until this
    session has run the task itself.
    """
    detail = DREAM_SKIP_WORDS.get(task.detail, task.detail)
    when = task.last_run_at or last_run_at
    last = f"last run {clock_time(when)}" if when else "not run yet"
    if task.state in ("running", "queued"):
        return f"{task.state} — {detail}" if detail else task.state
    if task.state == "failed":
        failed = f"failed {clock_time(task.last_run_at)}" if task.last_run_at else "failed"
        return f"{failed} — {detail or 'no reason given'}"
    if task.state == "skipped":
        return f"skipped — {detail} · {last}" if detail else f"skipped · {last}"
    if task.state == "done":
        return f"{last} — {detail}" if detail else last
    status = RUN_STATUS_WORDS.get(last_status or "", last_status or "")
    return f"{last} ({status})" if when and status else last


def memory_activity(extraction: TaskState, dream: TaskState) -> str:
    """The status line's short form: only while something runs or waits, else empty."""
    doing = [
        word
        for task, word in ((extraction, "extracting"), (dream, "consolidating"))
        if task.state == "running"
    ]
    if doing:
        return f"memory: {' and '.join(doing)}…"
    if extraction.state == "queued":
        return "memory: extraction queued"
    return ""
