"""What the background memory tasks (extraction, dreaming) are doing, and the same in words.

The state is the manager's (app/context/memory/manager.py); the words are for the memory panel's
status strip, the status line and ``agentctx-tui memory`` (a task's own state says what happened in
this session; ``meta.json`` remembers the last run of earlier ones).
"""

from __future__ import annotations

import time
from app.dataclass import dataclass


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
