"""Reading a session file line by line, turning each line into a Record or a reason.

Files can hold 100 MB records, so lines are streamed one at a time and each
intermediate form (bytes, parsed dict) is let go as soon as the next one exists:
about two copies of the largest line are alive at once, never more.

Lines are read as bytes and parsed with orjson, which decodes UTF-8 and JSON in
one pass: on a 500 MB record (bench/sessions.py) that took the parsing from
1.5 s to 0.2 s of CPU. A line orjson refuses (not UTF-8, a lone surrogate escape,
``NaN``) goes the slower way, through ``json``, which still says precisely what
is wrong with it, or accepts it as it always did. One difference is left: orjson
reads an integer beyond 64 bits as a float, so a record holding one where an
integer belongs is reported as unusable; nothing this program writes holds one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from app.core.session.records import Record

_TAIL_BLOCK = 64 * 1024
_LINE_BLOCK = 1024 * 1024
# orjson briefly needs about 13 times a line's size (measured on a 20 MB line); longer lines, rare
# and few, go through json, which needs two.
_ORJSON_MAX_LINE = 1024 * 1024
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
    lineno = 0
    loads, refused, from_json = orjson.loads, orjson.JSONDecodeError, Record.from_json
    for raw in _lines(path):
        lineno += 1
        size = len(raw)
        if size <= 2 and not bytes(raw).strip():
            continue
        if size <= _ORJSON_MAX_LINE:
            # parse_line_bytes and _record_from inlined: two calls fewer for each of 100,000 lines.
            try:
                result = LineResult(lineno, from_json(loads(raw)))
            except refused:
                result = _parse_decoded(str(raw, "utf-8", "surrogateescape"), lineno, complete=raw[-1:] == b"\n")
            except ValueError as exc:
                result = LineResult(lineno, problem=str(exc))
        else:
            complete = raw[-1:] == b"\n"
            text = str(raw, "utf-8", "surrogateescape")
            raw = b""  # the bytes go before the text is parsed: two copies at most
            result = _parse_decoded(text, lineno, complete=complete)
            text = ""
        raw = b""  # drop the line before reading the next one
        yield result


def _lines(path: Path, block: int = _LINE_BLOCK) -> Iterator[bytes | memoryview]:
    """The file's lines, newline included, each valid until the next is asked for.

    Lines that fit in a block are views into one reused buffer, found with ``bytearray.find``:
    iterating a buffered file made a bytes object per line, and was 0.6 s of the 2.3 s CPU a
    500 MB record took to load. A line longer than a block is read whole, on its own.
    """
    with path.open("rb", buffering=0) as handle:
        buffer = bytearray(block)
        view = memoryview(buffer)
        offset = 0  # where buffer[0] is in the file
        while True:
            handle.seek(offset)
            filled = handle.readinto(buffer) or 0
            if not filled:
                return
            start = 0
            while (end := buffer.find(b"\n", start, filled)) >= 0:
                yield view[start : end + 1]
                start = end + 1
            if filled < block:  # the end of the file: what is left has no newline
                if start < filled:
                    yield view[start:filled]
                return
            if start == 0:
                with path.open("rb") as whole:
                    whole.seek(offset)
                    # Through a list, so this frame keeps no reference while the caller parses it.
                    line = [whole.readline()]
                    offset = whole.tell()
                yield line.pop()
            else:
                offset += start  # the line cut at the end of the block starts the next one


def parse_line_bytes(raw: bytes | memoryview, lineno: int, *, complete: bool = True) -> LineResult:
    """One line as read from the file, as a record or the reason it is not one."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _parse_decoded(str(raw, "utf-8", "surrogateescape"), lineno, complete=complete)
    return _record_from(data, lineno)


def _parse_decoded(text: str, lineno: int, *, complete: bool) -> LineResult:
    # Undecodable bytes were marked rather than raised so one bad line cannot stop the rest from loading.
    if not text.isascii() and _ESCAPED_BYTE.search(text):
        return LineResult(lineno, problem="not valid UTF-8")
    return parse_line_text(text, lineno, complete=complete)


def parse_line_text(text: str, lineno: int, *, complete: bool = True) -> LineResult:
    """One decoded line as a record, or the reason it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        reason = "invalid JSON" if complete else "incomplete line, cut off while it was being written"
        return LineResult(lineno, problem=reason)
    except RecursionError:
        return LineResult(lineno, problem="JSON nested too deeply")
    return _record_from(data, lineno)


def _record_from(data: object, lineno: int) -> LineResult:
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
