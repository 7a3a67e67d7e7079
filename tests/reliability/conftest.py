"""Shared set-up of the reliability scenarios: no hypothesis database in the tree, the fuzz counter."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.reliability import fuzzing
from tests.reliability.report import INPUTS_FUZZED

# Failing examples are printed (with a reproduction blob), not saved under the repository.
settings.register_profile("agentctx", database=None, print_blob=True)
settings.load_profile("agentctx")


@pytest.fixture(autouse=True)
def _count_fuzzed_inputs(request: pytest.FixtureRequest) -> Iterator[None]:
    fuzzing.take_count()
    yield
    count = fuzzing.take_count()
    if count:
        request.node.user_properties.append((INPUTS_FUZZED, count))
