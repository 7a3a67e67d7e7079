"""glob: find files by name pattern, newest first."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, required_text, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.globmatch import glob_match, literal_prefix, normalize_pattern
from app.core.tools.text import plural

MAX_RESULTS = 500


@dataclass
class _Match:
    path: Path
    mtime: float


class GlobTool(Tool):
    name = "glob"
    description = (
        "Find files whose path matches a glob pattern, newest first. '*' matches within one "
        "directory level, '**' matches any number of directories, '{a,b}' lists alternatives: "
        "'**/*.py' finds Python files everywhere, '*.md' only at the top of the search directory. "
        "Directories such as .git, node_modules, __pycache__ and .venv are not searched."
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
        # Walking a large tree takes a while; keep the event loop (and the UI) responsive.
        matches = await asyncio.to_thread(find_matches, ctx, base, pattern)
        if not matches:
            return ToolResult(output=f"No files match {pattern} in {ctx.display(base)}", summary="0 files")
        rows = [ctx.display(match.path) for match in matches[:MAX_RESULTS]]
        extra = len(matches) - MAX_RESULTS
        if extra > 0:
            rows.append(f"… {plural(extra, 'more file')} not shown; narrow the pattern or the path")
        return ToolResult(output="\n".join(rows), summary=plural(len(matches), "file"))


def find_matches(ctx: ToolContext, base: Path, pattern: str) -> list[_Match]:
    """Files under ``base`` matching ``pattern``, newest first (then by path, for a stable order)."""
    start = base / literal_prefix(pattern)
    if not ctx.fs.is_dir(start):
        return []
    found: list[_Match] = []
    for path in ctx.fs.walk(start):
        if glob_match(pattern, path.relative_to(base).as_posix()) and ctx.contains(path):
            found.append(_Match(path, _mtime(ctx, path)))
    found.sort(key=lambda match: (-match.mtime, match.path.as_posix()))
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
