"""Server-sent events from the lines of a streamed HTTP body (the WHATWG event-stream rules we need).

An event is the ``data:`` lines up to a blank line, joined with newlines; ``event:``
names it; lines starting with ``:`` are comments (servers send them as keep-alives);
``id:``, ``retry:`` and unknown fields are ignored; an event whose data is one empty
line is not delivered. A body that ends without the final blank line still delivers
its last event.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ServerEvent:
    data: str
    event: str = ""


async def server_events(lines: AsyncIterable[str]) -> AsyncIterator[ServerEvent]:
    """The events in ``lines`` (each line without its line break)."""
    data: list[str] = []
    event = ""
    async for line in lines:
        if not line:
            if _deliverable(data):
                yield ServerEvent("\n".join(data), event)
            data, event = [], ""
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if _deliverable(data):
        yield ServerEvent("\n".join(data), event)


def _deliverable(data: list[str]) -> bool:
    return bool(data) and data != [""]
