"""grep_search: lines matching a regular expression, across files."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, required_text, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.globmatch import glob_match
from app.core.tools.text import looks_binary, plural, split_lines

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
# Bigger files are almost always generated data or bundles, never what the model is looking for.
MAX_FILE_BYTES = 5 * 1024 * 1024


@dataclass
class _Search:
    regex: re.Pattern[str]
    char_budget: int
    rows: list[str] = field(default_factory=list)
    chars: int = 0
    files_with_matches: int = 0
    truncated: bool = False


class GrepSearchTool(Tool):
    name = "grep_search"
    description = (
        "Search file contents with a Python regular expression, line by line. Returns "
        "'path:line: text' rows. Use include to filter file names (e.g. '*.py' or 'src/**/*.ts'); "
        "prefix the pattern with (?i) to ignore case. Binary and non-UTF-8 files are skipped."
    )
    kind = ToolKind.READ
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Python regular expression to search for."},
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

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        regex = compile_pattern(required_text(args, "pattern", allow_empty=False))
        target = ctx.resolve(text_arg(args, "path", required=False) or ".")
        include = text_arg(args, "include", required=False) or None
        if not ctx.fs.exists(target):
            raise ToolError(f"{ctx.display(target)} does not exist")
        search = _Search(regex=regex, char_budget=ctx.output_limit)
        await asyncio.to_thread(_search_files, ctx, search, _candidates(ctx, target, include))
        return _result(search, regex.pattern, ctx.display(target))


def compile_pattern(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"invalid regex {pattern!r}: {exc}") from None


def _candidates(ctx: ToolContext, target: Path, include: str | None) -> Iterable[Path]:
    if ctx.fs.is_file(target):
        return [target]
    return (path for path in ctx.fs.walk(target) if _included(path, target, include))


def _included(path: Path, base: Path, include: str | None) -> bool:
    if include is None:
        return True
    # A filter with a slash is about where the file is; without one, only the name counts.
    subject = path.relative_to(base).as_posix() if "/" in include else path.name
    return glob_match(include, subject)


def _search_files(ctx: ToolContext, search: _Search, paths: Iterable[Path]) -> None:
    for path in paths:
        text = _readable_text(ctx, path)
        if text is None:
            continue
        if _search_text(search, ctx.display(path), text):
            search.files_with_matches += 1
        if search.truncated:
            return


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
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _search_text(search: _Search, shown: str, text: str) -> bool:
    matched = False
    for number, line in enumerate(split_lines(text), start=1):
        if not search.regex.search(line):
            continue
        row = f"{shown}:{number}: {_cut(line)}"
        if len(search.rows) >= MAX_MATCHES or (search.rows and search.chars + len(row) > search.char_budget > 0):
            search.truncated = True
            return matched
        search.rows.append(row)
        search.chars += len(row) + 1
        matched = True
    return matched


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"


def _result(search: _Search, pattern: str, where: str) -> ToolResult:
    if not search.rows:
        return ToolResult(output=f"No matches for {pattern!r} in {where}", summary="0 matches")
    rows = list(search.rows)
    count = plural(len(rows), "match", "matches")
    if search.truncated:
        rows.append(f"… stopped after {count}; narrow the pattern, the path or the include filter")
        return ToolResult(output="\n".join(rows), summary=f"{count} (more not shown)")
    files = plural(search.files_with_matches, "file")
    return ToolResult(output="\n".join(rows), summary=f"{count} in {files}")
