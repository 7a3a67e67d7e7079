"""The reliability report: every scenario with its result, inputs fuzzed and bytes lost, printed at the end of a run.

Tests say what they measured through ``user_properties``: ``record_property("bytes_lost", n)``
in a scenario, and the fuzz counter (``tests.reliability.fuzzing``) for property tests.
pytest-xdist carries those properties from its workers to the process that prints
this summary, so the totals are right with ``-n``. Registered by ``tests/conftest.py``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest

RELIABILITY_PREFIX = "tests/reliability/"
INPUTS_FUZZED = "inputs_fuzzed"
BYTES_LOST = "bytes_lost"


@dataclass
class Tally:
    outcomes: Counter[str] = field(default_factory=Counter)
    inputs_fuzzed: int = 0
    bytes_lost: int = 0
    results: dict[str, str] = field(default_factory=dict)  # scenario -> passed | failed | skipped

    @property
    def scenarios(self) -> int:
        return sum(self.outcomes.values())


_tally = Tally()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not report.nodeid.startswith(RELIABILITY_PREFIX):
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _tally.outcomes[report.outcome] += 1
        _tally.results[report.nodeid] = report.outcome
    if report.when == "teardown":
        # The teardown report carries every property the test and its fixtures recorded.
        for name, value in report.user_properties:
            if name == INPUTS_FUZZED:
                _tally.inputs_fuzzed += int(value)
            elif name == BYTES_LOST:
                _tally.bytes_lost += int(value)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    if not _tally.scenarios:
        return
    outcomes = ", ".join(f"{count} {name}" for name, count in sorted(_tally.outcomes.items()))
    write = terminalreporter.write_line
    terminalreporter.section("reliability report")
    write(f"scenarios run: {_tally.scenarios} ({outcomes})")
    write(f"inputs fuzzed: {_tally.inputs_fuzzed}")
    write(f"bytes lost: {_tally.bytes_lost}")
    for nodeid, outcome in sorted(_tally.results.items()):
        write(f"{outcome.upper():8} {nodeid.removeprefix(RELIABILITY_PREFIX)}")
