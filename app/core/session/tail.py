"""The end of a session file: its current title and git branch, read from the last 64 KB.

A title is recorded after the first exchange and the conversation goes on for
megabytes after it, so the recorder writes the title again every 32 KB
(``TITLE_REANCHOR_BYTES``): the newest title record is then always within the
tail, and listing 1,000 sessions never reads a file to its end.
"""

from __future__ import annotations

import json
import os
import re
from app.dataclass import dataclass
from pathlib import Path

from app.core.session.records import (
    SUBTYPE_CUSTOM_TITLE,
    TITLE_SOURCE_AUTO,
    TITLE_SOURCE_MANUAL,
)

TAIL_BYTES = 64 * 1024
# Half the tail: a title written at most this many bytes ago is always inside it.
TITLE_REANCHOR_BYTES = 32 * 1024
# Metadata comes first in a record line; this much of a line's start holds it.
_LINE_HEAD = 2048

_TYPE = re.compile(rb'"type"\s*:\s*"([a-z_]+)"')
_BRANCH = re.compile(rb'"gitBranch"\s*:\s*("(?:[^"\\]|\\.)*")')
_MESSAGE_TYPES = {b"user", b"assistant", b"tool_result"}


@dataclass
class SessionTail:
    """What the last 64 KB of a session file say: its current title and git branch."""

    title: str | None = None
    title_source: str | None = None
    # Bytes written after the newest title record (None: no title in the tail).
    bytes_after_title: int | None = None
    git_branch: str | None = None
    # The tail is the whole file: counts below cover all of it.
    whole_file: bool = False
    message_count: int | None = None


def read_tail(path: Path) -> SessionTail:
    """Title, branch (and, for small files, the message count) from the file's last TAIL_BYTES."""
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - TAIL_BYTES)
        handle.seek(start)
        data = handle.read(size - start)
    tail = SessionTail(whole_file=start == 0)
    # Without the start of the file, the first piece is the end of a line that began earlier.
    first = 0 if start == 0 else data.find(b"\n") + 1
    if start > 0 and first == 0:
        return tail  # one line longer than the tail: nothing whole to read
    _find_title(tail, data, first, start, size)
    tail.git_branch = _find_branch(data, first)
    if tail.whole_file:
        tail.message_count = sum(1 for line in data.split(b"\n") if _line_type(line) in _MESSAGE_TYPES)
    return tail


def _find_title(tail: SessionTail, data: bytes, first: int, start: int, size: int) -> None:
    """The newest manual title in the tail, else the newest automatic one.

    Only lines that mention custom_title are parsed, found from the end; the
    recorder's re-anchoring keeps that to one or two per tail.
    """
    newest_auto: tuple[str, int] | None = None
    end = len(data)
    while True:
        hit = data.rfind(b"custom_title", first, end)
        if hit < 0:
            break
        line_start = data.rfind(b"\n", first, hit) + 1 or first
        line_end = data.find(b"\n", hit)
        line_end = len(data) if line_end < 0 else line_end
        end = line_start
        found = _title_of(data[line_start:line_end])
        if found is None:
            continue
        title, source = found
        after = max(0, size - (start + line_end + 1))
        if source == TITLE_SOURCE_MANUAL:
            tail.title, tail.title_source, tail.bytes_after_title = title, source, after
            return
        if newest_auto is None:
            newest_auto = (title, after)
    if newest_auto is not None:
        tail.title, tail.title_source = newest_auto[0], TITLE_SOURCE_AUTO
        tail.bytes_after_title = newest_auto[1]


def _title_of(line: bytes) -> tuple[str, str] | None:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return title_from_record_dict(data)


def title_from_record_dict(data: object) -> tuple[str, str] | None:
    """``(title, source)`` when ``data`` is a custom_title record with a usable title."""
    if not isinstance(data, dict) or data.get("subtype") != SUBTYPE_CUSTOM_TITLE:
        return None
    payload = data.get("systemPayload")
    if not isinstance(payload, dict):
        return None
    title = payload.get("customTitle")
    source = payload.get("titleSource")
    if not isinstance(title, str) or not title.strip():
        return None
    return title.strip(), source if source in (TITLE_SOURCE_MANUAL, TITLE_SOURCE_AUTO) else TITLE_SOURCE_AUTO


def _find_branch(data: bytes, first: int) -> str | None:
    """The gitBranch of the last record that has one (metadata sits at the start of a line)."""
    end = len(data)
    while end > first:
        line_start = data.rfind(b"\n", first, end - 1) + 1 or first
        match = _BRANCH.search(data, line_start, min(end, line_start + _LINE_HEAD))
        end = line_start
        if match is None:
            continue
        try:
            value = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(value, str) and value:
            return value
    return None


def _line_type(line: bytes) -> bytes | None:
    """The record's own type: the first "type" key in the line (nested ones come later)."""
    match = _TYPE.search(line, 0, _LINE_HEAD)
    return match.group(1) if match else None
