"""grep_search: lines matching a regular expression, across files, newest files first.

ripgrep does the searching (``app/core/tools/ripgrep.py``), so ``.gitignore``/``.ignore``, hidden and
binary files are passed over as a developer expects. When its binary cannot run, or the files live in a
speculative overlay, the same rules are applied in Python (``app/core/tools/ignore_rules.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterable
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, required_text, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.filesystem import RealFileSystem
from app.core.tools.globmatch import glob_match
from app.core.tools.ignore_rules import IgnoreRules
from app.core.tools.name_filter import plain_names
from app.core.tools.ripgrep import Ripgrep, RipgrepFailed, RipgrepUnavailable, find_ripgrep
from app.core.tools.text import looks_binary, plural, split_lines

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
# Bigger files are almost always generated data or bundles, never what the model is looking for.
MAX_FILE_BYTES = 5 * 1024 * 1024
# Matches are sorted newest file first, so more than are shown are read; beyond this many the search
# stops (and says so) rather than sort a repository's worth of hits.
READ_BUDGET = 10 * MAX_MATCHES


@dataclass
class _Hit:
    """One matching line, as grep_search reports it."""

    path: Path
    number: int
    text: str


@dataclass
class _Search:
    """The matching lines read so far, up to READ_BUDGET of them."""

    hits: list[_Hit] = field(default_factory=list)
    # Set when READ_BUDGET stopped the reading, so there were more matches than were looked at.
    cut_short: bool = False

    def add(self, hit: _Hit) -> bool:
        """Keep ``hit``; False once the budget is spent (the caller stops reading)."""
        if len(self.hits) >= READ_BUDGET:
            self.cut_short = True
            return False
        self.hits.append(hit)
        return True


class GrepSearchTool(Tool):
    name = "grep_search"
    description = (
        "Search file contents with a regular expression (ripgrep syntax, look-around allowed), line by "
        "line. Returns 'path:line: text' rows, most recently changed files first. Use include to filter "
        "file names (e.g. '*.py' or 'src/**/*.ts'); prefix the pattern with (?i) to ignore case. Files "
        "ignored by .gitignore or .ignore, hidden files and binary files are skipped."
    )
    kind = ToolKind.READ
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regular expression to search for."},
            "path": {"type": "string", "description": "File or directory to search; defaults to the workspace root."},
            "include": {"type": "string", "description": "Glob that file names must match, e.g. '*.py'."},
        },
        "required": ["pattern"],
    }

    def summarize(self, args: dict[str, Any]) -> str:
        where = shown_arg(args, "path")
        include = shown_arg(args, "include")
        return (
            f"grep_search {shown_arg(args, 'pattern')!r}"
            + (f" in {where}" if where else "")
            + (f" ({include})" if include else "")
        )

    def subject(self, args: dict[str, Any]) -> str:
        return path_subject(args.get("path") or ".")

    def __init__(self, ripgrep: Ripgrep | None = None) -> None:
        # None: the ``rg`` installed with this interpreter, looked up at first use.
        self._ripgrep = ripgrep

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        regex = compile_pattern(required_text(args, "pattern", allow_empty=False))
        target = ctx.resolve(text_arg(args, "path", required=False) or ".")
        include = text_arg(args, "include", required=False) or None
        if not ctx.fs.exists(target):
            raise ToolError(f"{ctx.display(target)} does not exist")
        search = _Search()
        ripgrep = self._ripgrep or find_ripgrep()
        # ripgrep reads the disk; a speculative overlay's files exist only through ctx.fs.
        if ripgrep is not None and isinstance(ctx.fs, RealFileSystem):
            try:
                await _search_with_ripgrep(ripgrep, ctx, search, regex.pattern, target, include)
            except RipgrepUnavailable:
                search = _Search()
                await asyncio.to_thread(_search_in_python, ctx, search, regex, target, include)
            except RipgrepFailed as exc:
                raise ToolError(f"invalid regex {regex.pattern!r} for ripgrep: {exc}") from None
        else:
            await asyncio.to_thread(_search_in_python, ctx, search, regex, target, include)
        return _result(ctx, search, regex.pattern, ctx.display(target))


def compile_pattern(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"invalid regex {pattern!r}: {exc}") from None


async def _search_with_ripgrep(
    ripgrep: Ripgrep, ctx: ToolContext, search: _Search, pattern: str, target: Path, include: str | None
) -> None:
    if not ctx.fs.is_dir(target):
        include = None  # a file named outright is searched whatever the filter says, as before
    # An include filter ripgrep reads as globmatch does is checked by ripgrep too (only those files
    # are searched); ``_included`` below still decides, for every filter.
    names = plain_names(include) if include is not None else None
    args = ripgrep.search_args(
        pattern,
        target,
        names=names or (),
        max_per_file=MAX_MATCHES + 1,
        max_filesize=MAX_FILE_BYTES,
    )
    base = target if ctx.fs.is_dir(target) else target.parent
    allowed: dict[Path, bool] = {}
    records = ripgrep.records(args, separator=b"\n")
    async with contextlib.aclosing(records):
        async for record in records:
            hit = _parse_record(record)
            # A record without NUL is ripgrep's note about a binary file named explicitly.
            if hit is None:
                continue
            if hit.path not in allowed:
                allowed[hit.path] = _included(hit.path, base, include) and ctx.contains(hit.path)
            if allowed[hit.path] and not search.add(hit):
                break


def _parse_record(record: bytes) -> _Hit | None:
    name, nul, rest = record.partition(b"\0")
    number, colon, text = rest.partition(b":")
    if not nul or not colon or not number.isdigit():
        return None
    line = text.decode("utf-8", "replace")
    return _Hit(Path(name.decode("utf-8", "surrogateescape")), int(number), line.removesuffix("\r"))


def _search_in_python(
    ctx: ToolContext, search: _Search, regex: re.Pattern[str], target: Path, include: str | None
) -> None:
    if ctx.fs.is_file(target):
        candidates: Iterable[Path] = [target]
    else:
        root = ctx.root if ctx.root == target or ctx.root in target.parents else target
        rules = IgnoreRules(ctx.fs, root, hidden=False)
        candidates = (
            path
            for path in ctx.fs.walk(target)
            if _included(path, target, include) and not rules.skips(path, target)
        )
    for path in candidates:
        text = _readable_text(ctx, path)
        if text is None:
            continue
        for number, line in enumerate(split_lines(text), start=1):
            if regex.search(line) and not search.add(_Hit(path, number, line)):
                return


def _included(path: Path, base: Path, include: str | None) -> bool:
    if include is None:
        return True
    # A filter with a slash is about where the file is; without one, only the name counts.
    subject = path.relative_to(base).as_posix() if "/" in include else path.name
    return glob_match(include, subject)


def _readable_text(ctx: ToolContext, path: Path) -> str | None:
    """The file's text, or None for anything a text search should pass over quietly."""
    try:
        if not ctx.contains(path) or ctx.fs.stat_size(path) > MAX_FILE_BYTES:
            return None
        data = ctx.fs.read_bytes(path)
    except (OSError, ToolError):  # ToolError: a FIFO, device or socket, refused before it is opened
        return None
    if looks_binary(data):
        return None
    # Like ripgrep: a Latin-1 file is still searched; its odd bytes show as U+FFFD.
    return data.decode("utf-8", "replace")


def _newest_first(ctx: ToolContext, hits: list[_Hit]) -> list[_Hit]:
    """Most recently changed files first (what is being worked on), then by path and line."""
    mtimes: dict[Path, float] = {}
    for hit in hits:
        if hit.path not in mtimes:
            try:
                mtimes[hit.path] = ctx.fs.mtime(hit.path)
            except OSError:
                mtimes[hit.path] = 0.0
    return sorted(hits, key=lambda hit: (-mtimes[hit.path], hit.path.as_posix(), hit.number))


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"


def _result(ctx: ToolContext, search: _Search, pattern: str, where: str) -> ToolResult:
    if not search.hits:
        return ToolResult(output=f"No matches for {pattern!r} in {where}", summary="0 matches")
    rows: list[str] = []
    chars = 0
    files: set[Path] = set()
    truncated = search.cut_short
    for hit in _newest_first(ctx, search.hits):
        row = f"{ctx.display(hit.path)}:{hit.number}: {_cut(hit.text)}"
        if len(rows) >= MAX_MATCHES or (rows and chars + len(row) > ctx.output_limit > 0):
            truncated = True
            break
        rows.append(row)
        chars += len(row) + 1
        files.add(hit.path)
    count = plural(len(rows), "match", "matches")
    if truncated:
        rows.append(f"… stopped after {count}; narrow the pattern, the path or the include filter")
        return ToolResult(output="\n".join(rows), summary=f"{count} (more not shown)")
    return ToolResult(output="\n".join(rows), summary=f"{count} in {plural(len(files), 'file')}")
