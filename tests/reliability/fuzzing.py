"""Budgets and a counter for the property tests.

Every property runs twice over: a small, derandomized budget in ``make test`` (the
same inputs every run, so a red build is a real regression) and a large random
one in ``make soak`` (``AGENTCTX_SOAK_EXAMPLES`` raises it for a deeper run). Each
property body calls ``fuzzed()`` once per input, which the report adds up.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

FAST_EXAMPLES = 60
SOAK_EXAMPLES = int(os.environ.get("AGENTCTX_SOAK_EXAMPLES", "4000"))

_count = 0


def fuzzed() -> None:
    global _count
    _count += 1


def take_count() -> int:
    global _count
    count, _count = _count, 0
    return count


BUDGETS = [
    pytest.param(FAST_EXAMPLES, id="fast"),
    pytest.param(SOAK_EXAMPLES, id="soak", marks=pytest.mark.soak),
]


def check(prop: Callable[..., Any], examples: int) -> None:
    """Run a ``@given`` property with ``examples`` inputs; the fast budget is derandomized."""
    settings(
        max_examples=examples,
        deadline=None,
        derandomize=examples <= FAST_EXAMPLES,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )(prop)()
