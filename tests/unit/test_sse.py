"""Server-sent events decoded from body lines: the parts of the event-stream format endpoints use."""

from __future__ import annotations

from collections.abc import AsyncIterator

from app.core.llm.sse import ServerEvent, server_events


async def _lines(*lines: str) -> AsyncIterator[str]:
    for line in lines:
        yield line


async def _events(*lines: str) -> list[ServerEvent]:
    return [event async for event in server_events(_lines(*lines))]


async def test_a_blank_line_ends_each_event() -> None:
    assert await _events("data: a", "", "data: b", "") == [ServerEvent("a"), ServerEvent("b")]


async def test_data_lines_of_one_event_are_joined_with_newlines() -> None:
    assert await _events("data: {", "data: }", "") == [ServerEvent("{\n}")]


async def test_one_space_after_the_colon_is_dropped_and_no_more() -> None:
    assert await _events("data:x", "", "data:  y", "") == [ServerEvent("x"), ServerEvent(" y")]


async def test_comments_ids_retries_and_unknown_fields_are_ignored() -> None:
    lines = (": keep-alive", "id: 4", "retry: 100", "vendor: z", "data: a", "")
    assert await _events(*lines) == [ServerEvent("a")]


async def test_an_event_name_belongs_to_its_event_only() -> None:
    assert await _events("event: error", "data: e", "", "data: f", "") == [ServerEvent("e", "error"), ServerEvent("f")]


async def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert await _events("", "", ": ping", "", "event: ping", "") == []


async def test_the_last_event_is_kept_when_the_body_ends_without_a_blank_line() -> None:
    assert await _events("data: a", "", "data: [DONE]") == [ServerEvent("a"), ServerEvent("[DONE]")]


async def test_a_field_name_without_a_colon_has_an_empty_value_and_one_empty_line_is_no_event() -> None:
    assert await _events("data", "", "data:", "") == []
    assert await _events("data", "data", "") == [ServerEvent("\n")]
