"""glob: find files by name pattern, recently changed ones first, the rest by path.

The order is Qwen Code's: files changed in the last 24 hours first, newest first, then the others
alphabetically. Ordering needs a ``stat`` per match, which was most of a wide glob's time
(30,000 matches: 0.25 s, against 0.03 s for ``rg --files`` itself); so beyond ``MAX_TIMED``
matches no modification time is read and the list is alphabetical, which the output says
(Qwen Code instead stops collecting at 1,000 matches and orders those).

ripgrep lists the files (``--files``: ``.gitignore``/``.ignore`` respected, hidden files kept because a
glob for ``.env`` or ``.github/**`` means them), from the pattern's literal directory, keeping only the
file names the pattern allows where its glob dialect agrees with ours (``name_filter.py``); ``globmatch``
decides the rest, so the pattern language stays the one the description promises. The listing is read,
ordered and cut in one worker thread (``Ripgrep.in_thread``). Without a runnable ripgrep, or in a
speculative overlay, the walk is done in Python with the same ignore rules (``ignore_rules.py``).
"""

from __future__ import annotations

import asyncio
import heapq
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, required_text, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.filesystem import RealFileSystem
from app.core.tools.globmatch import compile_glob, literal_prefix, normalize_pattern
from app.core.tools.ignore_rules import IgnoreRules
from app.core.tools.name_filter import NameFilter, name_filter
from app.core.tools.ripgrep import Listing, Ripgrep, RipgrepFailed, RipgrepUnavailable, find_ripgrep
from app.core.tools.text import plural
from app.core.undecodable import escape

MAX_RESULTS = 500
# Beyond this many matches the order is by path alone (no stat per match; ~10 ms for 2,000 here).
MAX_TIMED = 2_000
# Modification times read while ripgrep is still listing (see ``_listed_and_first_stats``).
EARLY_STATS = 200
RECENT_SECONDS = 24 * 60 * 60


class GlobTool(Tool):
    name = "glob"
    description = (
        "Find files whose path matches a glob pattern; files changed in the last 24 hours come "
        "first (newest first), the rest by path. '*' matches within one "
        "directory level, '**' matches any number of directories, '{a,b}' lists alternatives: "
        "'**/*.py' finds Python files everywhere, '*.md' only at the top of the search directory. "
        "Files ignored by .gitignore or .ignore, and directories such as .git, node_modules, "
        "__pycache__ and .venv, are not searched."
    )
    kind = ToolKind.READ
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob pattern relative to path, e.g. 'src/**/*.ts'."},
            "path": {"type": "string", "description": "Directory to search in; defaults to the workspace root."},
        },
        "required": ["pattern"],
    }

    def __init__(self, ripgrep: Ripgrep | None = None) -> None:
        # None: the ``rg`` installed with this interpreter, looked up at first use.
        self._ripgrep = ripgrep

    def summarize(self, args: dict[str, Any]) -> str:
        where = shown_arg(args, "path")
        return f"glob {shown_arg(args, 'pattern')}" + (f" in {where}" if where else "")

    def subject(self, args: dict[str, Any]) -> str:
        return path_subject(args.get("path") or ".")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        base = ctx.resolve(text_arg(args, "path", required=False) or ".")
        pattern = _relative_pattern(required_text(args, "pattern", allow_empty=False), base)
        if not ctx.fs.is_dir(base):
            raise ToolError(f"{ctx.display(base)} is not a directory; path must be a directory to search in")
        found = await self._find(ctx, base, pattern)
        if not found.count:
            return ToolResult(output=f"No files match {pattern} in {ctx.display(base)}", summary="0 files")
        # ctx.display(base / rel) for each row, without a Path per row (500 of them were ~2 ms).
        head = ctx.display(base)
        rows = [escape(rel) if head == "." else f"{head}/{escape(rel)}" for rel in found.shown]
        extra = found.count - len(found.shown)
        if extra > 0:
            rows.append(f"… {plural(extra, 'more file')} not shown; narrow the pattern or the path")
        if not found.timed:
            rows.append(f"(more than {MAX_TIMED:,} files match: listed by path, without the recently changed ones first)")
        return ToolResult(output="\n".join(rows), summary=plural(found.count, "file"))

    async def _find(self, ctx: ToolContext, base: Path, pattern: str) -> _Found:
        prefix = literal_prefix(pattern)
        start = base / prefix
        if not ctx.fs.is_dir(start):
            return _Found([], 0, True)
        if not ctx.contains(start):  # e.g. the pattern starts with a symlink to a directory elsewhere
            return _Found([], 0, True)
        ripgrep = self._ripgrep or find_ripgrep()
        # ripgrep reads the disk; a speculative overlay's files exist only through ctx.fs.
        if ripgrep is not None and isinstance(ctx.fs, RealFileSystem):
            wanted = name_filter(pattern[len(prefix) + 1 :] if prefix else pattern)
            args = ripgrep.files_args(names=wanted.names, max_depth=wanted.max_depth)
            try:
                return await ripgrep.in_thread(partial(_found_by_ripgrep, base, prefix, pattern, wanted, args))
            except (RipgrepUnavailable, RipgrepFailed):
                pass
        # Walking a large tree takes a while; keep the event loop (and the UI) responsive.
        return await asyncio.to_thread(find_matches, ctx, base, start, pattern)


class _Found:
    """The rows to show (paths relative to the search directory), how many matched, and whether
    the order is by time. A plain class: a dataclass costs start-up time (issue 23)."""

    __slots__ = ("shown", "count", "timed")

    def __init__(self, shown: list[str], count: int, timed: bool) -> None:
        self.shown = shown
        self.count = count
        self.timed = timed


def _found_by_ripgrep(
    base: Path, prefix: str, pattern: str, wanted: NameFilter, args: list[str], listing: Listing
) -> _Found:
    """The matches ripgrep lists under ``base / prefix``, in the tool's order (in a worker thread).

    ripgrep runs in that directory and checks the file name itself (``name_filter``); for the usual
    shapes (``**/*.py``, ``src/**/*.ts``, ``*.md``) its listing is the answer, and no path is matched
    in Python. ripgrep follows no symlink below the directory, so everything it lists is inside.
    """
    start = base / prefix
    if wanted.exact:
        directory = os.fspath(start) + os.sep
        output, early = _listed_and_first_stats(listing.chunks(args, cwd=start), os.fsencode(directory))
        names = _split(output)
        # The first names' times were read while ripgrep was still running.
        known = dict(zip(names, early))
        found = _first_in_order(names, partial(_mtimes_of, known, directory))
        if prefix:
            found.shown = [f"{prefix}/{name}" for name in found.shown]
        return found
    regex = compile_glob(pattern)
    names = _split(b"".join(listing.chunks(args, cwd=start)))
    if prefix:
        names = [f"{prefix}/{name}" for name in names]
    names = [name for name in names if regex.fullmatch(name) is not None]
    return _first_in_order(names, partial(_stat_mtimes, os.fspath(base) + os.sep))


def _split(output: bytes) -> list[str]:
    # Decoded once as a whole (NUL is ASCII, so splitting after decoding is the same as before).
    names = os.fsdecode(output).split("\0")
    names.pop()  # after the last NUL
    return names


def _listed_and_first_stats(chunks: Iterable[bytes], directory: bytes) -> tuple[bytes, list[float]]:
    """The whole listing, and the modification times of its first ``EARLY_STATS`` names, taken
    while ripgrep is still flushing its output and exiting rather than after (``directory`` ends
    with a separator).

    On the 600-file glob of ``bench.search`` this took the tool from 1.74-1.83x to 1.64-1.73x rg's
    time (``python -m bench.search_ab``, 501-1001 runs, load 4-7): the times are most of what the
    tool adds to ripgrep there. 200 is about as many as fit in that last stretch of ripgrep's run
    (~0.4 ms here, at ~2.5 µs a ``stat``); 500 gained no more on 600 files, and every one is wasted
    on a listing that ends above ``MAX_TIMED`` (30,000 files: ≈ 0.7 ms for 200).
    """
    parts: list[bytes] = []
    pending = b""
    early: list[float] = []
    stat = os.stat
    for chunk in chunks:
        parts.append(chunk)
        if len(early) < EARLY_STATS:
            *complete, pending = (pending + chunk).split(b"\0")
            for name in complete[: EARLY_STATS - len(early)]:
                try:
                    early.append(stat(directory + name).st_mtime)
                except OSError:
                    early.append(0.0)
    return b"".join(parts), early


def _mtimes_of(known: dict[str, float], directory: str, names: list[str]) -> list[float]:
    missing = [name for name in names if name not in known]
    known.update(zip(missing, _stat_mtimes(directory, missing)))
    return [known[name] for name in names]


def find_matches(ctx: ToolContext, base: Path, start: Path, pattern: str) -> _Found:
    """Files under ``start`` (inside ``base``) matching ``pattern``, walked in Python."""
    root = ctx.root if ctx.root == start or ctx.root in start.parents else start
    rules = IgnoreRules(ctx.fs, root, hidden=True)
    regex = compile_glob(pattern)
    names = []
    for path in ctx.fs.walk(start):
        if rules.skips(path, start):
            continue
        rel = path.relative_to(base).as_posix()
        if regex.fullmatch(rel) is not None and ctx.contains(path):
            names.append(rel)
    return _first_in_order(names, lambda rels: [_mtime(ctx, base / rel) for rel in rels])


def _first_in_order(names: list[str], mtimes: Callable[[list[str]], list[float]]) -> _Found:
    """The first ``MAX_RESULTS`` of ``names`` in the tool's order, how many there are, and whether
    the order is by time (not beyond ``MAX_TIMED``: then by path, with no ``stat`` at all)."""
    if len(names) > MAX_TIMED:
        # Only the first by path are shown: picking them takes about half the time of sorting all
        # (30,000 names: 1.4 ms against 2.5 ms).
        return _Found(heapq.nsmallest(MAX_RESULTS, names), len(names), False)
    names.sort()
    now = time.time()
    recent: list[tuple[float, str]] = []
    for name, changed in zip(names, mtimes(names)):
        if now - changed < RECENT_SECONDS:  # a clock ahead of ours counts as recent, as in Qwen Code
            recent.append((-changed, name))
    if recent:
        recent.sort()  # newest first, then by path
        first = [name for _, name in recent]
        chosen = set(first)
        names = first + [name for name in names if name not in chosen]
    return _Found(names[:MAX_RESULTS], len(names), True)


def _stat_mtimes(directory: str, names: list[str]) -> list[float]:
    """The modification time of each of ``names`` (in ``directory``, which ends with a separator).

    One loop with ``os.stat`` and nothing else per file: the ``stat`` calls are most of a narrow
    glob's own time (600 files: ~1.7 ms on this machine, against ~4 ms for ripgrep's listing), and a
    helper function per file added ~0.3 ms to that.
    """
    stat = os.stat
    mtimes = []
    for name in names:
        try:
            mtimes.append(stat(directory + name).st_mtime)
        except OSError:
            mtimes.append(0.0)  # a dangling symlink still matches by name; it just sorts with the old files
    return mtimes


def _mtime(ctx: ToolContext, path: Path) -> float:
    try:
        return ctx.fs.mtime(path)
    except OSError:
        return 0.0  # a dangling symlink still matches by name; it just sorts last


def _relative_pattern(pattern: str, base: Path) -> str:
    """Models often pass an absolute pattern; accept it when it points inside ``base``."""
    pattern = normalize_pattern(pattern)
    if not pattern.startswith("/"):
        return pattern
    prefix = base.as_posix().rstrip("/") + "/"
    if pattern.startswith(prefix):
        return pattern[len(prefix) :]
    raise ToolError(f"the pattern {pattern} is absolute and not inside {base}; give a pattern relative to path")
