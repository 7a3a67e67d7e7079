"""How each hook last went, kept per project so `agentctx-tui hooks list` can say it between sessions.

One small JSON file in the project's state dir, written atomically after each run;
a missing or damaged file only means "not run yet".
"""

from __future__ import annotations

import json
import time
from app.dataclass import dataclass
from pathlib import Path

from app.fsutil import atomic_write_text

LAST_RUNS_FILE = "hooks-last-runs.json"


@dataclass(frozen=True)
class LastRun:
    """How one hook went the last time it ran, and when."""

    summary: str
    at: float  # seconds since the epoch
    session_id: str = ""


def load_last_runs(path: Path | None) -> dict[str, LastRun]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    runs: dict[str, LastRun] = {}
    for key, item in data.items() if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("summary"), str) and isinstance(item.get("at"), (int, float)):
            runs[str(key)] = LastRun(item["summary"], float(item["at"]), str(item.get("session_id") or ""))
    return runs


def save_last_run(path: Path | None, key: str, summary: str, session_id: str) -> None:
    """Add one result; the file is never worth failing a hook over."""
    if path is None:
        return
    runs = load_last_runs(path)
    runs[key] = LastRun(summary, time.time(), session_id)
    payload = {k: {"summary": r.summary, "at": r.at, "session_id": r.session_id} for k, r in runs.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(payload, ensure_ascii=False))
    except OSError:
        pass
