"""The state files' format: JSON written atomically, indented by two spaces, ending in a newline.

Timestamps in them: ISO 8601 in UTC with milliseconds and a ``Z``
(``2026-08-19T09:30:00.000Z``), the form JavaScript's toISOString writes, so
state written by either implementation reads back in the other.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.fsutil import atomic_write_text


EPOCH_ISO = "1970-01-01T00:00:00.000Z"


def iso_utc(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_iso(text: object) -> float | None:
    """Seconds since the epoch, or None for anything that is not an ISO timestamp."""
    if not isinstance(text, str) or not text.strip():
        return None
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The object in ``path``; None when the file is missing, unreadable or not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
