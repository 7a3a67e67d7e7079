"""Which parts of a request the endpoint's cached prefix covers, and the /context cache lines."""

from __future__ import annotations

from app.context.prompt_cache import cache_lines, cached_part_ids
from app.core.request import RequestPart
from app.core.history import Usage


def _parts(*sizes: int) -> list[RequestPart]:
    return [RequestPart(block="system", kind="base", name=f"p{i}", source="t", text="", tokens=n) for i, n in enumerate(sizes)]


def test_only_parts_that_end_inside_the_prefix_are_cached() -> None:
    parts = _parts(1000, 500, 300, 200)
    assert cached_part_ids(parts, 1500, None) == {id(parts[0]), id(parts[1])}
    assert cached_part_ids(parts, 1499, None) == {id(parts[0])}
    assert cached_part_ids(parts, 0, None) == set()
    assert cached_part_ids(parts, 10_000, None) == {id(p) for p in parts}


def test_the_servers_prefix_is_scaled_to_our_counts() -> None:
    # Our parts add to 2,000; the server counted 2,200 (its chat template) and cached 1,650 of them,
    # which is 1,500 of ours: the first two parts.
    parts = _parts(1000, 500, 300, 200)
    assert cached_part_ids(parts, 1650, 2200) == {id(parts[0]), id(parts[1])}


def test_cache_lines_give_the_last_request_and_the_session() -> None:
    lines = cache_lines(Usage(prompt_tokens=4000, cached_tokens=3000), Usage(prompt_tokens=10_000, cached_tokens=4000))
    assert lines == [
        "Prompt cache (as the endpoint reported it):",
        "  last request: 3,000 of 4,000 prompt tokens (75%) served from the cache",
        "  this session: 4,000 of 10,000 prompt tokens (40%) served from the cache",
    ]


def test_cache_lines_without_usage_say_not_reported() -> None:
    assert cache_lines(None, Usage())[1:] == ["  last request: not reported", "  this session: not reported"]
