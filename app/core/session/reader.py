"""Reading a session file line by line, turning each line into a Record or a reason.

Files can hold 100 MB records, so lines are streamed one at a time and each
intermediate form (text, parsed dict) is let go as soon as the next one exists:
about two copies of the largest line are alive at once, never more.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.core.session.records import Record

_TAIL_BLOCK = 64 * 1024
# Undecodable bytes come through "surrogateescape" as these code points. The
# recorder never writes them raw (it escapes them as \udcXX), so seeing one
# means the line is not valid UTF-8.
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


@dataclass
class LineResult:
    """One non-blank line: its record, or why it could not be used."""

    lineno: int
    record: Record | None = None
    problem: str | None = None


def iter_records(path: Path) -> Iterator[LineResult]:
    """Every non-blank line of the file, in order; bad content never raises."""
    # Text mode decodes in small chunks as it reads, so a long line never exists
    # as bytes and text at the same time; errors are marked rather than raised so
    # one bad line cannot stop the rest from loading.
    with path.open("r", encoding="utf-8", errors="surrogateescape", newline="\n") as handle:
        lineno = 0
        while True:
            text = handle.readline()
            if not text:
                return
            lineno += 1
            if len(text) <= 2 and not text.strip():
                continue
            if not text.isascii() and _ESCAPED_BYTE.search(text):
                text = ""
                yield LineResult(lineno, problem="not valid UTF-8")
                continue
            result = parse_line_text(text, lineno, complete=text.endswith("\n"))
            text = ""  # drop the line before reading the next one
            yield result


def parse_line_text(text: str, lineno: int, *, complete: bool = True) -> LineResult:
    """One decoded line as a record, or the reason it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        reason = "invalid JSON" if complete else "incomplete line, cut off while it was being written"
        return LineResult(lineno, problem=reason)
    except RecursionError:
        return LineResult(lineno, problem="JSON nested too deeply")
    try:
        return LineResult(lineno, record=Record.from_json(data))
    except ValueError as exc:
        return LineResult(lineno, problem=str(exc))


def ends_with_newline(path: Path) -> bool:
    """False when the file's last line was cut off; an empty file counts as ending cleanly."""
    with path.open("rb") as handle:
        if handle.seek(0, os.SEEK_END) == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def last_valid_record(path: Path) -> Record | None:
    """The last line of the file that is a valid record, found by reading from the end."""
    for raw in _lines_from_end(path):
        if not raw.strip():
            continue
        text = _utf8_or_none(raw)
        if text is None:
            continue
        result = parse_line_text(text, 0)
        if result.record is not None:
            return result.record
    return None


def _utf8_or_none(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _lines_from_end(path: Path) -> Iterator[bytes]:
    """The file's lines, last first, reading backwards in blocks."""
    with path.open("rb") as handle:
        position = handle.seek(0, os.SEEK_END)
        # Pieces of the line being assembled, rightmost first.
        pieces: list[bytes] = []
        while position > 0:
            size = min(_TAIL_BLOCK, position)
            position -= size
            handle.seek(position)
            parts = handle.read(size).split(b"\n")
            pieces.append(parts[-1])
            if len(parts) == 1:
                continue
            yield b"".join(reversed(pieces))
            yield from reversed(parts[1:-1])
            pieces = [parts[0]]
        if pieces:
            yield b"".join(reversed(pieces))
