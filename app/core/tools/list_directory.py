"""list_directory: what a directory contains, directories first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.text import plural
from app.core.undecodable import escape

MAX_ENTRIES = 1000


class ListDirectoryTool(Tool):
    name = "list_directory"
    description = (
        "List the entries of a directory in the workspace: subdirectories first (with a trailing /), "
        "then files with their sizes."
    )
    kind = ToolKind.READ
    parameters = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Directory path, relative to the workspace root ('.' for the root).",
            },
        },
        "required": ["path"],
    }

    def summarize(self, args: dict[str, Any]) -> str:
        return f"list_directory {shown_arg(args, 'path', '.')}"

    def subject(self, args: dict[str, Any]) -> str:
        return path_subject(args.get("path") or ".")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(text_arg(args, "path", required=False) or ".")
        shown = ctx.display(path)
        if not ctx.fs.exists(path):
            raise ToolError(f"{shown} does not exist")
        if not ctx.fs.is_dir(path):
            raise ToolError(f"{shown} is not a directory; use read_file to read a file")
        children = ctx.fs.iterdir(path)
        if not children:
            return ToolResult(output=f"({shown} is empty)", summary="0 entries")
        rows = _rows(ctx, children)
        extra = len(rows) - MAX_ENTRIES
        if extra > 0:
            rows = rows[:MAX_ENTRIES] + [f"… {plural(extra, 'more entry', 'more entries')} not shown"]
        return ToolResult(output="\n".join(rows), summary=plural(len(children), "entry", "entries"))


def _rows(ctx: ToolContext, children: list[Path]) -> list[str]:
    dirs = [child for child in children if ctx.fs.is_dir(child)]
    files = [child for child in children if not ctx.fs.is_dir(child)]
    # A name that is not UTF-8 is shown with its odd bytes as \xNN, the form read_file takes back.
    rows = [f"{escape(child.name)}/" for child in sorted(dirs, key=_sort_key)]
    width = max((len(escape(child.name)) for child in files), default=0)
    for child in sorted(files, key=_sort_key):
        size = _size_label(ctx, child)
        name = escape(child.name)
        rows.append(f"{name.ljust(width)}  {size}" if size else name)
    return rows


def _sort_key(path: Path) -> tuple[str, str]:
    # Case-insensitive first so README and readme.txt sit together; the name breaks ties.
    return (path.name.casefold(), path.name)


def _size_label(ctx: ToolContext, path: Path) -> str:
    try:
        return human_size(ctx.fs.stat_size(path))
    except OSError:
        return ""  # a dangling symlink has no size; its name is still worth showing


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
