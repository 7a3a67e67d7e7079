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
from app.context.instructions.truncation import clamp, cut_marker, truncate_middle


def test_files_that_fit_are_injected_verbatim_after_rstrip() -> None:
    (a, b) = apply_budget([("a.md", "alpha  \n\n"), BudgetEntry("b.md", "  beta")])
    assert (a.text, a.raw_chars, a.injected_chars, a.status) == ("alpha", 5, 5, BudgetStatus.OK)
    assert (b.text, b.raw_chars, b.status, b.causes) == ("  beta", 6, "OK", ())


def test_the_marker_names_the_file_the_lines_kept_and_how_to_read_the_rest() -> None:
    assert cut_marker("docs/QWEN.md", 3, 2, 10, 40, 100) == (
        "[… docs/QWEN.md is cut here to fit the instruction budget: kept lines 1-3 and lines 9-10 of 10 "
        "(40 of 100 characters). Lines 4-8 are left out; read them with read_file on docs/QWEN.md "
        "(offset 4, limit 5) when they may matter.]"
    )


def _numbered(count: int, width: int = 40) -> str:
    return "\n".join(f"line {i:04d} ".ljust(width, "x") for i in range(1, count + 1))


def test_a_cut_falls_on_line_boundaries_and_keeps_head_and_tail() -> None:
    content = _numbered(100)
    (result,) = apply_budget([("QWEN.md", content)], per_file_cap=2000)
    assert result.injected_chars <= 2000 and result.truncated
    head, marker, tail = result.text.split("\n\n")
    kept = head.split("\n") + tail.split("\n")
    assert all(line in content.split("\n") for line in kept), "only whole lines are kept"
    assert head.startswith("line 0001") and tail.endswith("line 0100 ".ljust(40, "x"))
    first_left_out = len(head.split("\n")) + 1
    assert f"Lines {first_left_out}-" in marker and f"offset {first_left_out}" in marker
    assert len(head) > 2 * len(tail), "three quarters of what is kept is the head"
    assert result.messages == ("instruction file QWEN.md is 4,099 chars (limit 2,000); it is sent cut at a line boundary (context.per_file_chars sets the limit)",)


def test_a_paragraph_break_is_preferred_when_it_keeps_most_of_the_head() -> None:
    lines = [f"rule {i:03d} " + "y" * 30 for i in range(60)]
    lines[20] = ""  # a paragraph break a little before where the head would end
    content = "\n".join(lines)
    text = truncate_middle(content, 1300, "AGENTS.md")
    head = text.split("\n\n")[0]
    assert head.split("\n")[-1] == lines[19], "the head ends at the paragraph break"


def test_the_marker_names_the_file_to_read_for_the_rest() -> None:
    (result,) = apply_budget([("../docs/AGENTS.md", _numbered(300))], per_file_cap=1000)
    assert "read_file on ../docs/AGENTS.md" in result.text
    assert "[… ../docs/AGENTS.md is cut here" in result.text


def test_one_long_line_is_cut_by_characters_with_a_marker() -> None:
    text = truncate_middle("x" * 2000, 400, "QWEN.md")
    assert len(text) <= 400 and "[… QWEN.md is cut here: kept the first" in text


def test_a_tiny_cap_still_fits() -> None:
    assert len(truncate_middle("abcdef" * 50, 5, "Q")) <= 5


def test_the_total_cap_cuts_later_files() -> None:
    files = [("a.md", "a" * 300), ("b.md", "b" * 300), ("c.md", "c" * 10)]
    a, b, c = apply_budget(files, per_file_cap=1000, total_cap=500)
    assert (a.status, a.injected_chars, a.causes) == ("OK", 300, ())
    # b gets what is left (200 < its 1000 cap) and is cut to fit it.
    assert b.status == "TRUNCATED" and b.injected_chars <= 200 and b.causes == ("total-limit",)
    assert b.remaining_before == 200
    assert b.text.startswith("b" * 50) and "read b.md for the rest" in b.text
    assert c.remaining_before == 200 - b.injected_chars


def test_files_stop_when_less_than_64_chars_remain() -> None:
    files = [("a.md", "a" * 450), ("b.md", "b" * 10), ("c.md", "c" * 10)]
    a, b, c = apply_budget(files, per_file_cap=1000, total_cap=500)
    assert a.injected_chars == 450
    assert (b.text, b.injected_chars, b.status, b.dropped) == ("", 0, "TRUNCATED", True)
    assert b.messages == (
        "the instruction budget has 50 chars left (<64); the remaining instruction files are left out (context.total_chars sets the budget)",
        "instruction file b.md (10 chars) was left out: the instruction budget of 500 chars is spent (context.total_chars sets it)",
    )
    assert b.causes == ("total-limit",)
    assert (c.injected_chars, c.causes) == (0, ("total-limit",))
    assert c.messages == ("instruction file c.md (10 chars) was left out: the instruction budget of 500 chars is spent (context.total_chars sets it)",)


def test_exactly_64_remaining_still_admits_a_file() -> None:
    _, b = apply_budget([("a.md", "a" * 436), ("b.md", "b" * 10)], per_file_cap=1000, total_cap=500)
    assert b.injected_chars == 10


def test_a_spent_budget_drops_the_rest_and_names_each_file_it_drops() -> None:
    a, b = apply_budget([("a.md", "a" * 500), ("b.md", "b")], per_file_cap=1000, total_cap=500)
    assert a.injected_chars == 500 and b.dropped
    assert b.messages == ("instruction file b.md (1 chars) was left out: the instruction budget of 500 chars is spent (context.total_chars sets it)",)


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


def test_truncation_notice_is_our_own_three_lines() -> None:
    assert truncation_notice().split("\n") == [
        "[Instruction files cut]",
        "Some instruction files above were cut to fit the instruction budget; each cut is marked where it happened.",
        "Read the lines a marker names before relying on what they cover.",
    ]


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (None, (20_000, 60_000)),
        (32_768, (20_000, 60_000)),  # 10 % of 32 K tokens is 13 K chars: OpenClaw's floor wins
        (128_000, (51_200, 128_000)),
        (1_000_000, (400_000, 1_000_000)),
    ],
)
def test_default_caps_scale_with_the_window(window: int | None, expected: tuple[int, int]) -> None:
    caps = resolve_caps(None, None, window)
    assert (caps.per_file, caps.total) == expected


def test_a_configured_cap_beats_the_window_default() -> None:
    caps = resolve_caps(8_000, None, 1_000_000)
    assert (caps.per_file, caps.total) == (8_000, 1_000_000)


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
