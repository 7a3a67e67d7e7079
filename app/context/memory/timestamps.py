"""Timestamps in the state files: ISO 8601 in UTC with milliseconds and a ``Z``
(``2026-08-19T09:30:00.000Z``), the form JavaScript's toISOString writes, so
state written by either implementation reads back in the other."""

from __future__ import annotations

from datetime import UTC, datetime

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
