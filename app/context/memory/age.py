"""How old a memory is, in words a model reasons with.

Models do date arithmetic poorly: a bare timestamp does not make one wonder
whether a memory is stale, "47 days ago" does. Times are seconds since the epoch.
"""

from __future__ import annotations

import math

SECONDS_PER_DAY = 86_400


def memory_age_days(mtime: float, now: float) -> int:
    """Whole days since ``mtime``; never negative (a clock skewed into the future reads as today)."""
    return max(0, math.floor((now - mtime) / SECONDS_PER_DAY))


def memory_age(mtime: float, now: float) -> str:
    days = memory_age_days(mtime, now)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


def memory_freshness_text(mtime: float, now: float) -> str:
    """A caution for memories older than a day; empty otherwise."""
    days = memory_age_days(mtime, now)
    if days <= 1:
        return ""
    return (
        f"This memory is {days} days old. Memories are point-in-time observations, not live state "
        "\u2014 claims about code behavior or file:line citations may be outdated. "
        "Verify against current code before asserting as fact."
    )


def memory_freshness_note(mtime: float, now: float) -> str:
    """The caution wrapped as a system reminder, or empty."""
    text = memory_freshness_text(mtime, now)
    return f"<system-reminder>{text}</system-reminder>\n" if text else ""
