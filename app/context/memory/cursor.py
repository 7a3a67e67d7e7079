"""The extraction cursor: how far into a session's history memories were already extracted.

Stored in ``extract-cursor.json`` as ``{sessionId?, processedOffset?, updatedAt}``.
An offset only counts for the session that wrote it, and one past the end of
the history (compaction shortens it) starts over from 0; otherwise new
messages would be skipped for the rest of the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app.context.memory.statefile import read_json_object, write_json
from app.context.memory.statefile import EPOCH_ISO, iso_utc


class _HistoryMessage(Protocol):
    role: str
    content: Any


@dataclass(frozen=True)
class ExtractCursor:
    updated_at: str = EPOCH_ISO
    session_id: str | None = None
    processed_offset: int | None = None


@dataclass(frozen=True)
class ExtractionStart:
    """Where extraction starts; ``skip_cursor`` is set when there is nothing new to read,
    and is then the cursor to write (past the whole history) instead of running."""

    start: int
    skip_cursor: ExtractCursor | None = None

    @property
    def skip(self) -> bool:
        return self.skip_cursor is not None


def read_cursor(path: Path) -> ExtractCursor:
    """The stored cursor; a missing or damaged file reads as a cursor at the epoch with no offset."""
    data = read_json_object(path)
    if data is None:
        return ExtractCursor()
    session = data.get("sessionId")
    offset = data.get("processedOffset")
    updated = data.get("updatedAt")
    return ExtractCursor(
        updated_at=updated if isinstance(updated, str) else EPOCH_ISO,
        session_id=session if isinstance(session, str) else None,
        processed_offset=offset if isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0 else None,
    )


def write_cursor(path: Path, cursor: ExtractCursor) -> None:
    data: dict[str, Any] = {}
    if cursor.session_id is not None:
        data["sessionId"] = cursor.session_id
    if cursor.processed_offset is not None:
        data["processedOffset"] = cursor.processed_offset
    data["updatedAt"] = cursor.updated_at
    write_json(path, data)


def raw_offset(cursor: ExtractCursor, session_id: str) -> int:
    """The stored offset when it belongs to ``session_id``, else 0."""
    if cursor.session_id == session_id and cursor.processed_offset is not None:
        return cursor.processed_offset
    return 0


def start_offset(cursor: ExtractCursor, session_id: str, history_length: int) -> int:
    """Where to start reading: 0 when the offset is past the end (the history shrank)."""
    offset = raw_offset(cursor, session_id)
    return 0 if offset > history_length else offset


def has_new_user_message(history: Sequence[_HistoryMessage], start: int) -> bool:
    """Whether ``history[start:]`` holds a user message with text in it."""
    return any(message.role == "user" and _has_text(message.content) for message in history[start:])


def plan_extraction_start(
    cursor: ExtractCursor, session_id: str, history: Sequence[_HistoryMessage], now: float
) -> ExtractionStart:
    start = start_offset(cursor, session_id, len(history))
    if has_new_user_message(history, start):
        return ExtractionStart(start)
    return ExtractionStart(start, ExtractCursor(iso_utc(now), session_id, len(history)))


def cursor_after_run(
    session_id: str, *, start: int, history_length: int, touched_topics: bool, tools_ran: bool, now: float
) -> ExtractCursor:
    """Past the whole history after every completed run, saved or not: a run that found nothing
    worth saving has read those messages, and reading them again costs a request for the same
    answer. (A run cut off by its budget does not get here: the caller leaves the cursor put.)
    ``start``, ``touched_topics`` and ``tools_ran`` are kept for the callers' records."""
    del start, touched_topics, tools_ran
    return ExtractCursor(iso_utc(now), session_id, history_length)


def _has_text(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(_has_text(part.get("text") if isinstance(part, dict) else part) for part in content)
    return False
