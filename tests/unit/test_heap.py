"""The collector at start-up (app/heap.py): off while loading, frozen and back on once loaded, whatever happens."""

from __future__ import annotations

import gc

import pytest

from app import heap
from app.__main__ import main


@pytest.fixture(autouse=True)
def collector_restored():  # type: ignore[no-untyped-def]
    yield
    gc.enable()
    gc.unfreeze()


def test_loading_turns_the_collector_off_and_loaded_freezes_what_exists_and_turns_it_back_on() -> None:
    heap.loading()
    assert not gc.isenabled()
    kept = [object() for _ in range(10)]  # noqa: F841 - alive through the freeze
    heap.loaded()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_loaded_is_a_no_op_when_the_collector_already_runs() -> None:
    gc.unfreeze()
    heap.loaded()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_command_gives_the_collector_back_even_when_it_exits_early(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])  # argparse exits from inside the command
    assert gc.isenabled()
    assert main(["sessions", "list"]) in (0, 1)  # an ordinary return
    assert gc.isenabled()
