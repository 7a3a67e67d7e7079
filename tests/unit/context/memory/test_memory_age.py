"""Memory age in words and the freshness caution."""

from __future__ import annotations

import pytest

from app.context.memory.prompt import (
    memory_age,
    memory_age_days,
    memory_freshness_note,
    memory_freshness_text,
)
from tests.unit.memory_support import DAY, NOW


@pytest.mark.parametrize(
    ("age", "days", "words"),
    [
        (0, 0, "today"),
        (DAY - 1, 0, "today"),
        (DAY, 1, "yesterday"),
        (2 * DAY - 1, 1, "yesterday"),
        (2 * DAY, 2, "2 days ago"),
        (47 * DAY + 5, 47, "47 days ago"),
        (-3 * DAY, 0, "today"),  # a modification time in the future
    ],
)
def test_age_in_words(age: float, days: int, words: str) -> None:
    assert memory_age_days(NOW - age, NOW) == days
    assert memory_age(NOW - age, NOW) == words


def test_no_caution_up_to_a_day() -> None:
    assert memory_freshness_text(NOW - DAY, NOW) == ""
    assert memory_freshness_note(NOW - DAY, NOW) == ""


def test_caution_for_older_memories() -> None:
    text = memory_freshness_text(NOW - 47 * DAY, NOW)
    assert text == (
        "This memory is 47 days old. Memories are point-in-time observations, not live state \u2014 "
        "claims about code behavior or file:line citations may be outdated. "
        "Verify against current code before asserting as fact."
    )
    assert memory_freshness_note(NOW - 47 * DAY, NOW) == f"<system-reminder>{text}</system-reminder>\n"
