"""glob: find files by name pattern, newest first.

ripgrep lists the files (``--files``: ``.gitignore``/``.ignore`` respected, hidden files kept because a
glob for ``.env`` or ``.github/**`` means them) and ``globmatch`` decides which match, so the pattern
language stays the one the description promises. Without a runnable ripgrep, or in a speculative
overlay, the walk is done in Python with the same ignore rules (``app/core/tools/ignore_rules.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, required_text, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.filesystem import RealFileSystem
from app.core.tools.globmatch import compile_glob, literal_prefix, normalize_pattern
from app.core.tools.ignore_rules import IgnoreRules
from app.core.tools.ripgrep import Ripgrep, RipgrepFailed, RipgrepUnavailable, find_ripgrep
from app.core.tools.text import plural

MAX_RESULTS = 500


@dataclass
class _Match:
    rel: str  # relative to the searched directory, "/"-separated
    mtime: float


class GlobTool(Tool):
    name = "glob"
    description = (
        "Find files whose path matches a glob pattern, newest first. '*' matches within one "
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
        matches = await self._find(ctx, base, pattern)
        if not matches:
            return ToolResult(output=f"No files match {pattern} in {ctx.display(base)}", summary="0 files")
        rows = [ctx.display(base / match.rel) for match in matches[:MAX_RESULTS]]
        extra = len(matches) - MAX_RESULTS
        if extra > 0:
            rows.append(f"… {plural(extra, 'more file')} not shown; narrow the pattern or the path")
        return ToolResult(output="\n".join(rows), summary=plural(len(matches), "file"))

    async def _find(self, ctx: ToolContext, base: Path, pattern: str) -> list[_Match]:
        start = base / literal_prefix(pattern)
        if not ctx.fs.is_dir(start):
            return []
        if not ctx.contains(start):  # e.g. the pattern starts with a symlink to a directory elsewhere
            return []
        ripgrep = self._ripgrep or find_ripgrep()
        # ripgrep reads the disk; a speculative overlay's files exist only through ctx.fs.
        if ripgrep is not None and isinstance(ctx.fs, RealFileSystem):
            try:
                relative = await _listed_by_ripgrep(ripgrep, base, start)
            except (RipgrepUnavailable, RipgrepFailed):
                pass
            else:
                # ripgrep follows no symlink below ``start``, so everything it lists is inside.
                return await asyncio.to_thread(_matching, ctx, base, pattern, relative, checked=True)
        # Walking a large tree takes a while; keep the event loop (and the UI) responsive.
        return await asyncio.to_thread(find_matches, ctx, base, start, pattern)


async def _listed_by_ripgrep(ripgrep: Ripgrep, base: Path, start: Path) -> list[str]:
    """Paths relative to ``base`` of every file ripgrep would search under ``start``."""
    prefix = len(os.fsencode(base)) + 1
    listed: list[str] = []
    records = ripgrep.records(ripgrep.files_args(start), separator=b"\0")
    async with contextlib.aclosing(records):
        async for record in records:
            if record:
                listed.append(os.fsdecode(record[prefix:]))
    return listed


def find_matches(ctx: ToolContext, base: Path, start: Path, pattern: str) -> list[_Match]:
    """Files under ``start`` (inside ``base``) matching ``pattern``, walked in Python."""
    root = ctx.root if ctx.root == start or ctx.root in start.parents else start
    rules = IgnoreRules(ctx.fs, root, hidden=True)
    relative = [
        path.relative_to(base).as_posix() for path in ctx.fs.walk(start) if not rules.skips(path, start)
    ]
    return _matching(ctx, base, pattern, relative, checked=False)


def _matching(ctx: ToolContext, base: Path, pattern: str, relative: list[str], *, checked: bool) -> list[_Match]:
    """The paths that match, inside the workspace, newest first (then by path, for a stable order).

    ``checked``: the paths came from ripgrep on the real disk, so they are inside the workspace
    and ``os.stat`` on the string can be used. On 30,000 matches, a ``contains`` (realpath) and a
    ``Path`` per file took 1.5 s; strings and ``os.stat`` take a tenth of that.
    """
    regex = compile_glob(pattern)
    prefix = os.fspath(base) + os.sep
    found: list[_Match] = []
    for rel in relative:
        if regex.fullmatch(rel) is None:
            continue
        if checked:
            try:
                mtime = os.stat(prefix + rel).st_mtime
            except OSError:
                mtime = 0.0
        elif ctx.contains(base / rel):
            mtime = _mtime(ctx, base / rel)
        else:
            continue
        found.append(_Match(rel, mtime))
    found.sort(key=lambda match: (-match.mtime, match.rel))
    return found


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
