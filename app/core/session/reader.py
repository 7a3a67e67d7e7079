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
from app.dataclass import dataclass
from pathlib import Path

import orjson

from app.core.session.lazy_text import SessionFileText, _OpenFile, hold_content, open_for_texts
from app.core.session.records import Record

_TAIL_BLOCK = 64 * 1024
# A tool-result line this long keeps its text in the file until read (lazy_text.py): at 16 KB, 6,300 of
# the 35,000 results of bench/sessions.py's 500 MB record, 400 MB of its text.
LEAVE_IN_FILE_BYTES = 16 * 1024
# The encoded text itself: at least 12 KB of JSON is at least 2 KB of UTF-8 (a ``\\u`` escape with four hex digits is the longest
# escape, 6 bytes for 1), so such a text is always one the recorder stores once (dedupe.DEDUPE_MIN_BYTES).
_LEFT_TEXT_MIN = 12 * 1024
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


def iter_records(path: Path, *, leave_large_results: bool = False) -> Iterator[LineResult]:
    """Every non-blank line of the file, in order; bad content never raises.

    ``leave_large_results``: a tool result of ``LEAVE_IN_FILE_BYTES`` or more keeps its text in the
    file until it is read (app/core/session/lazy_text.py).
    """
    lineno = 0
    loads, refused, from_json = orjson.loads, orjson.JSONDecodeError, Record.from_json
    texts: _OpenFile | None = None
    for offset, raw in _lines_at(path):
        lineno += 1
        size = len(raw)
        if size <= 2 and not bytes(raw).strip():
            continue
        if leave_large_results and size >= LEAVE_IN_FILE_BYTES:
            if texts is None:
                texts = open_for_texts(path)
            record = _tool_result_left_in_file(raw, offset, texts)
            if record is not None:
                raw = b""
                yield LineResult(lineno, record)
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


# Where our recorder puts a tool result's text: first in its message, the call's id right after it.
_CONTENT_START = re.compile(rb', "message": \{"role": "tool", "content": "')
_CONTENT_END = re.compile(rb'", "tool_call_id": "')
_HEAD = 8192  # the metadata before the message is a few hundred bytes
_TAIL = 4096  # so are the call's id and name after the text


def _tool_result_left_in_file(raw: bytes | memoryview, offset: int, texts: _OpenFile) -> Record | None:
    """The record of a long tool-result line with its text left in the file, or None (then read it whole).

    The text is the JSON string between the two markers our recorder writes around it. A bare quote is
    always a string's edge in JSON, so a quote preceded by an even number of backslashes that starts the
    end marker closes the text; the rest of the line, the text cut out, must parse as a well-formed tool
    result whose text is empty. Anything else (another writer's layout, a line cut off) goes the usual way.
    """
    size = len(raw)
    found = _CONTENT_START.search(raw, 0, _HEAD)
    if found is None:
        return None
    start = found.end()  # the text's first byte
    end = -1
    for candidate in _CONTENT_END.finditer(raw, max(start, size - _TAIL)):
        at = candidate.start()
        slashes = 0
        while raw[at - 1 - slashes] == 0x5C:  # backslashes before the quote
            slashes += 1
        if slashes % 2 == 0:
            end = at
            break
    if end - start < _LEFT_TEXT_MIN:
        return None
    try:
        data = orjson.loads(bytes(raw[:start]) + bytes(raw[end:]))
        record = Record.from_json(data)
    except ValueError:  # orjson's error is one too
        return None
    message = record.message
    if record.type != "tool_result" or message is None or message.role != "tool" or message.content or record.content_ref is not None:
        return None
    hold_content(message, SessionFileText(texts, offset + start - 1, end - start + 2))
    return record


def _lines(path: Path, block: int = _LINE_BLOCK) -> Iterator[bytes | memoryview]:
    """The file's lines, newline included, each valid until the next is asked for (see ``_lines_at``)."""
    for _, line in _lines_at(path, block):
        yield line


def _lines_at(path: Path, block: int = _LINE_BLOCK) -> Iterator[tuple[int, bytes | memoryview]]:
    """The file's lines with the offset of each, newline included, each valid until the next is asked for.

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
                yield offset + start, view[start : end + 1]
                start = end + 1
            if filled < block:  # the end of the file: what is left has no newline
                if start < filled:
                    yield offset + start, view[start:filled]
                return
            if start == 0:
                at = offset
                with path.open("rb") as whole:
                    whole.seek(offset)
                    # Through a list, so this frame keeps no reference while the caller parses it.
                    line = [whole.readline()]
                    offset = whole.tell()
                yield at, line.pop()
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
