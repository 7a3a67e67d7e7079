"""ripgrep listings read in a worker thread (glob): output, failures, cancellation, early stats."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from app.core.tools import glob_tool
from app.core.tools.base import ToolContext
from app.core.tools.glob_tool import MAX_TIMED, GlobTool, _listed_and_first_stats
from app.core.tools.ripgrep import Listing, Ripgrep, RipgrepFailed, RipgrepUnavailable, find_ripgrep


def _program(tmp_path: Path, body: str) -> Path:
    program = tmp_path / "fake-rg"
    program.write_text(f"#!/bin/sh\n{body}\n")
    program.chmod(0o755)
    return program


def test_a_listing_is_run_in_the_directory_it_lists(tmp_path: Path) -> None:
    found = find_ripgrep()
    assert found is not None
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("x")
    (tmp_path / "b.txt").write_text("x")
    output = b"".join(Listing(found.binary).chunks(found.files_args(), cwd=tmp_path))
    assert sorted(output.split(b"\0")) == [b"", b"b.txt", b"sub/a.txt"]  # relative, NUL-ended
    only_top = b"".join(Listing(found.binary).chunks(found.files_args(max_depth=1), cwd=tmp_path))
    assert only_top == b"b.txt\0"


def test_a_binary_that_cannot_start_or_refuses_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "not-rg"
    broken.write_text("not a program\n")
    with pytest.raises(RipgrepUnavailable):
        list(Listing(broken).chunks([], cwd=tmp_path))
    refusing = _program(tmp_path, "echo 'rg: bad flag' >&2; exit 2")
    with pytest.raises(RipgrepFailed):
        list(Listing(refusing).chunks([], cwd=tmp_path))
    # Status 2 with output (some file unreadable) is still an answer.
    partial = _program(tmp_path, "printf 'a.txt\\0'; exit 2")
    assert b"".join(Listing(partial).chunks([], cwd=tmp_path)) == b"a.txt\0"


def test_a_stopped_listing_starts_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    listing = Listing(_program(tmp_path, f"touch {marker}"))
    listing.stop()
    assert list(listing.chunks([], cwd=tmp_path)) == []
    assert not marker.exists()


async def test_cancelling_the_caller_kills_ripgrep(tmp_path: Path) -> None:
    # A "ripgrep" that prints one record and then never ends: only a kill ends the read.
    program = _program(tmp_path, "printf 'a.txt\\0'; exec sleep 600")
    started, ended = threading.Event(), threading.Event()
    seen: list[Listing] = []

    def work(listing: Listing) -> bytes:
        seen.append(listing)
        try:
            chunks = listing.chunks([], cwd=tmp_path)
            first = next(chunks)
            started.set()
            return first + b"".join(chunks)
        finally:
            ended.set()

    task = asyncio.ensure_future(Ripgrep(program).in_thread(work))
    await asyncio.to_thread(started.wait)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.to_thread(ended.wait)  # the read ended: the process was killed and reaped
    process = seen[0]._process
    assert process is not None and process.returncode == -signal.SIGKILL


def test_the_first_names_are_stated_as_they_arrive_even_split_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(glob_tool, "EARLY_STATS", 3)
    for number, name in enumerate(("a", "bb", "c", "d")):
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, (1_000 + number, 1_000 + number))
    chunks = [b"a\0b", b"b\0", b"c\0d", b"\0"]  # "bb" split over two reads
    output, early = _listed_and_first_stats(iter(chunks), os.fsencode(tmp_path) + b"/")
    assert output == b"a\0bb\0c\0d\0"
    assert early == [1_000.0, 1_001.0, 1_002.0]  # a, bb, c; d is stated later, with the rest
    # A name that vanished still counts, as the oldest.
    _, gone = _listed_and_first_stats(iter([b"gone\0"]), os.fsencode(tmp_path) + b"/")
    assert gone == [0.0]


@pytest.mark.parametrize("early_stats", [0, 5, MAX_TIMED])
async def test_glob_order_is_the_same_whether_times_are_read_early_or_late(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, early_stats: int
) -> None:
    monkeypatch.setattr(glob_tool, "EARLY_STATS", early_stats)
    now = time.time()
    expected = []
    for number in range(40):
        path = tmp_path / f"d{number % 4}" / f"f{number:02d}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text("x")
        age = 60 * ((number * 7) % 40) if number % 3 else 90_000 + number  # some older than a day
        os.utime(path, (now - age, now - age))
        expected.append((age >= 86_400, age if age < 86_400 else 0, path.relative_to(tmp_path).as_posix()))
    result = await GlobTool(find_ripgrep()).run({"pattern": "**/*.txt"}, ToolContext(root=tmp_path))
    # Changed in the last day, newest first (then by path); the rest by path.
    assert result.output.splitlines() == [rel for *_, rel in sorted(expected)]
