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


# -- lines from bytes, bounded ----------------------------------------------------------------

from app.core.llm.sse import LineTooLong, bounded_lines  # noqa: E402


async def _chunks(*chunks: bytes) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def _split(*chunks: bytes, limit: int = 100) -> list[str]:
    return [line async for line in bounded_lines(_chunks(*chunks), limit)]


async def test_lines_end_with_lf_crlf_or_cr_wherever_the_chunks_are_cut() -> None:
    assert await _split(b"a\nb\r\nc\rd") == ["a", "b", "c", "d"]
    # A CRLF cut between two reads is one line end, not a line end and an empty line.
    assert await _split(b"data: x\r", b"\n\r\n", b"data: y\n") == ["data: x", "", "data: y"]
    assert await _split(b"da", b"ta: ", b"z\n\n") == ["data: z", ""]


async def test_invalid_utf8_becomes_replacement_characters_not_an_exception() -> None:
    assert await _split(b"data: \xff\xfe\n") == ["data: \ufffd\ufffd"]


async def test_a_line_over_the_limit_stops_before_it_is_held_whole() -> None:
    received: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        while True:
            received.append(1)
            yield b"x" * 40  # never a line end

    try:
        async for _ in bounded_lines(endless(), 100):
            pass
    except LineTooLong as exc:
        assert exc.limit == 100
    else:
        raise AssertionError("the endless line was not stopped")
    assert len(received) == 3, "stopped at the first read past the limit"


async def test_a_line_of_exactly_the_limit_passes() -> None:
    assert await _split(b"y" * 100 + b"\n") == ["y" * 100]


async def test_an_event_of_many_short_data_lines_is_capped_like_a_line() -> None:
    lines = ["data: " + "z" * 30] * 10
    try:
        [event async for event in server_events(_lines(*lines, ""), 200)]
    except LineTooLong:
        return
    raise AssertionError("an event larger than the limit was delivered")
