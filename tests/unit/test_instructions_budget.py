"""The instruction budget (OpenClaw §1.3, generic algorithm): caps, head/tail truncation, markers, causes."""

from __future__ import annotations

import math

import pytest

from app.context.instructions.budget import (
    BudgetEntry,
    BudgetStatus,
    apply_budget,
    resolve_caps,
    total_near_limit,
    truncation_notice,
)
from app.context.instructions.truncation import clamp, compact_marker, long_marker, truncate_middle


def test_files_that_fit_are_injected_verbatim_after_rstrip() -> None:
    (a, b) = apply_budget([("a.md", "alpha  \n\n"), BudgetEntry("b.md", "  beta")])
    assert (a.text, a.raw_chars, a.injected_chars, a.status) == ("alpha", 5, 5, BudgetStatus.OK)
    assert (b.text, b.raw_chars, b.status, b.causes) == ("  beta", 6, "OK", ())


def test_long_marker_text() -> None:
    assert long_marker("docs/QWEN.md", 3, 1, 10) == (
        "[...truncated, read docs/QWEN.md for full content...]\n…(truncated docs/QWEN.md: kept 3+1 chars of 10)…"
    )
    assert compact_marker(3, 1, 10) == "[…truncated 3+1/10]"


def test_per_file_truncation_keeps_three_quarters_head_one_quarter_tail() -> None:
    content = "H" * 500 + "T" * 500
    (result,) = apply_budget([("QWEN.md", content)], per_file_cap=400)
    # The marker with 0+0 is 94 chars; with the blank lines around it 98, so b = 302 -> 226/75.
    # The real sizes need 3 more digits: b = 299 -> 224/74, and a third pass confirms it.
    marker = "[...truncated, read QWEN.md for full content...]\n…(truncated QWEN.md: kept 224+74 chars of 1000)…"
    assert result.text == "H" * 224 + "\n\n" + marker + "\n\n" + "T" * 74
    assert result.injected_chars == 399  # within the cap of 400
    assert (result.status, result.causes, result.raw_chars) == ("TRUNCATED", ("per-file-limit",), 1000)
    assert result.messages == ("workspace bootstrap file QWEN.md is 1000 chars (limit 400); truncating in injected context",)


def test_the_marker_names_the_file_to_read_for_the_rest() -> None:
    (result,) = apply_budget([("../docs/AGENTS.md", "x" * 5000)], per_file_cap=1000)
    assert "[...truncated, read ../docs/AGENTS.md for full content...]" in result.text
    assert "…(truncated ../docs/AGENTS.md: kept " in result.text


def test_compact_marker_when_fewer_than_16_content_chars_would_remain() -> None:
    name = "some/long/name/QWEN.md"
    text = truncate_middle("x" * 200, 60, name)
    # The long marker alone is longer than 60; the compact one leaves 39 chars: 29 head + 9 tail.
    assert text == "x" * 29 + "[…truncated 29+9/200]" + "x" * 9
    assert len(text) <= 60


def test_a_tiny_cap_keeps_one_head_char() -> None:
    assert truncate_middle("abcdef" * 50, 5, "Q") == "a[…truncated 1+0/300]"


def test_the_total_cap_cuts_later_files() -> None:
    files = [("a.md", "a" * 300), ("b.md", "b" * 300), ("c.md", "c" * 10)]
    a, b, c = apply_budget(files, per_file_cap=1000, total_cap=500)
    assert (a.status, a.injected_chars, a.causes) == ("OK", 300, ())
    # b gets what is left (200 < its 1000 cap) and is cut to fit it.
    assert b.status == "TRUNCATED" and b.injected_chars <= 200 and b.causes == ("total-limit",)
    assert b.remaining_before == 200
    assert b.text.startswith("b" * 50) and "read b.md for full content" in b.text
    assert c.remaining_before == 200 - b.injected_chars


def test_files_stop_when_less_than_64_chars_remain() -> None:
    files = [("a.md", "a" * 450), ("b.md", "b" * 10), ("c.md", "c" * 10)]
    a, b, c = apply_budget(files, per_file_cap=1000, total_cap=500)
    assert a.injected_chars == 450
    assert (b.text, b.injected_chars, b.status, b.dropped) == ("", 0, "TRUNCATED", True)
    assert b.messages == (
        "remaining bootstrap budget is 50 chars (<64); skipping additional bootstrap files",
        "workspace bootstrap file b.md (10 chars) was left out: the bootstrap budget of 500 chars is spent",
    )
    assert b.causes == ("total-limit",)
    assert (c.injected_chars, c.causes) == (0, ("total-limit",))
    assert c.messages == ("workspace bootstrap file c.md (10 chars) was left out: the bootstrap budget of 500 chars is spent",)


def test_exactly_64_remaining_still_admits_a_file() -> None:
    _, b = apply_budget([("a.md", "a" * 436), ("b.md", "b" * 10)], per_file_cap=1000, total_cap=500)
    assert b.injected_chars == 10


def test_a_spent_budget_drops_the_rest_and_names_each_file_it_drops() -> None:
    a, b = apply_budget([("a.md", "a" * 500), ("b.md", "b")], per_file_cap=1000, total_cap=500)
    assert a.injected_chars == 500 and b.dropped
    assert b.messages == ("workspace bootstrap file b.md (1 chars) was left out: the bootstrap budget of 500 chars is spent",)


def test_clamp() -> None:
    assert clamp("abcdef", 10) == "abcdef"
    assert clamp("abcdef", 4) == "abc…"
    assert clamp("abcdef", 3) == "abc"
    assert clamp("abcdef", 0) == ""


def test_both_causes_can_apply() -> None:
    _, b = apply_budget([("a.md", "a" * 900), ("b.md", "b" * 2000)], per_file_cap=1000, total_cap=1500)
    assert b.causes == ("per-file-limit", "total-limit")
    assert b.cause == "per-file-limit"


def test_near_limit_is_85_percent_of_the_per_file_cap() -> None:
    near, below = apply_budget([("a.md", "a" * 17_000), ("b.md", "b" * 16_999)])
    assert near.near_limit and not below.near_limit
    assert near.status == "OK"


def test_total_near_limit() -> None:
    results = apply_budget([("a.md", "a" * 850)], per_file_cap=1000, total_cap=1000)
    assert total_near_limit(results, 1000)
    assert not total_near_limit(apply_budget([("a.md", "a" * 849)], 1000, 1000), 1000)


def test_truncation_notice_is_the_fixed_three_lines() -> None:
    assert truncation_notice().split("\n") == [
        "[Bootstrap truncation warning]",
        "Some workspace bootstrap files were truncated before Project Context injection.",
        "Treat Project Context as partial and read the relevant files directly if details seem missing.",
    ]


@pytest.mark.parametrize(
    ("per_file", "total", "expected"),
    [
        (None, None, (20_000, 60_000)),
        (1500.9, 7000.2, (1500, 7000)),
        (0, -5, (20_000, 60_000)),
        (math.nan, math.inf, (20_000, 60_000)),
        ("12", "x", (12, 60_000)),
        (True, False, (20_000, 60_000)),
        (0.5, 0.5, (20_000, 60_000)),
        (100_000, None, (100_000, 100_000)),
        (100_000, 50_000, (100_000, 50_000)),
    ],
)
def test_configured_caps_are_floored_and_bad_values_mean_defaults(per_file: object, total: object, expected: tuple[int, int]) -> None:
    caps = resolve_caps(per_file, total)
    assert (caps.per_file, caps.total) == expected


def test_apply_budget_uses_resolved_caps() -> None:
    (result,) = apply_budget([("a.md", "a" * 25_000)], per_file_cap=-1, total_cap=0)
    assert result.limit == 20_000 and result.injected_chars <= 20_000 and result.truncated


def test_chars_are_code_points() -> None:
    (result,) = apply_budget([("emoji.md", "😀" * 10)], per_file_cap=10)
    assert result.status == "OK" and result.injected_chars == 10
