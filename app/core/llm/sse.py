"""Server-sent events from a streamed HTTP body (the WHATWG event-stream rules we need), bounded.

An event is the ``data:`` lines up to a blank line, joined with newlines; ``event:``
names it; lines starting with ``:`` are comments (servers send them as keep-alives);
``id:``, ``retry:`` and unknown fields are ignored; an event whose data is one empty
line is not delivered. A body that ends without the final blank line still delivers
its last event.

Lines are split here rather than by httpx2's ``aiter_lines``, which holds a line of
any length in memory: one 400 MB line took 1.27 GB before anything failed. Here a
line (and an event's data) longer than ``max_line_bytes`` raises ``LineTooLong`` as
soon as the buffer passes the limit, so the memory a stream holds stays within a
line's limit plus one network read.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from app.dataclass import dataclass

DEFAULT_MAX_LINE_BYTES = 1_000_000


@dataclass(frozen=True)
class ServerEvent:
    """One event of the stream: its data lines joined, and its ``event:`` name if it had one."""

    data: str
    event: str = ""


class LineTooLong(Exception):
    """One line or one event of the stream is longer than the limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"an event-stream line or event longer than {limit:,} bytes")
        self.limit = limit


async def bounded_lines(chunks: AsyncIterable[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> AsyncIterator[str]:
    """The lines of a byte stream (ended by CRLF, LF or CR), each without its ending, each at most ``max_line_bytes``."""
    buffer = bytearray()
    pending_cr = False  # a CR ended the last chunk: a LF starting the next one belongs to it
    async for chunk in chunks:
        if not chunk:
            continue
        if pending_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        pending_cr = False
        start = 0
        while True:
            cut = _line_end(chunk, start)
            if cut < 0:
                break
            buffer += chunk[start:cut]
            if len(buffer) > max_line_bytes:
                raise LineTooLong(max_line_bytes)
            yield buffer.decode("utf-8", errors="replace")
            buffer.clear()
            if chunk[cut] == 0x0D:
                if cut + 1 == len(chunk):
                    pending_cr = True
                    start = cut + 1
                    break
                start = cut + 2 if chunk[cut + 1] == 0x0A else cut + 1
            else:
                start = cut + 1
        buffer += chunk[start:]
        if len(buffer) > max_line_bytes:
            raise LineTooLong(max_line_bytes)
    if buffer:
        yield buffer.decode("utf-8", errors="replace")


def _line_end(chunk: bytes, start: int) -> int:
    lf = chunk.find(b"\n", start)
    cr = chunk.find(b"\r", start, lf if lf >= 0 else len(chunk))
    return cr if cr >= 0 else lf


async def server_events(lines: AsyncIterable[str], max_event_bytes: int = DEFAULT_MAX_LINE_BYTES) -> AsyncIterator[ServerEvent]:
    """The events in ``lines`` (each line without its line break); an event's data is capped like a line."""
    data: list[str] = []
    size = 0
    event = ""
    async for line in lines:
        if not line:
            if _deliverable(data):
                yield ServerEvent("\n".join(data), event)
            data, size, event = [], 0, ""
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            size += len(value) + 1
            if size > max_event_bytes:
                raise LineTooLong(max_event_bytes)
            data.append(value)
        elif field == "event":
            event = value
    if _deliverable(data):
        yield ServerEvent("\n".join(data), event)


def _deliverable(data: list[str]) -> bool:
    return bool(data) and data != [""]
