"""write_file: create a file or replace its whole content."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from app.core.tools.arguments import path_subject, required_text, shown_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.filesystem import special_kind
from app.core.tools.text import count_lines, load_text, plural


class WriteFileTool(Tool):
    name = "write_file"
    description = (
        "Create a file, or overwrite an existing one with new content. Parent directories are "
        "created. To change part of an existing file, prefer the edit tool."
    )
    kind = ToolKind.EDIT
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace root."},
            "content": {"type": "string", "description": "The complete new content of the file."},
        },
        "required": ["path", "content"],
    }

    def summarize(self, args: dict[str, Any]) -> str:
        return f"write_file {shown_arg(args, 'path')}"

    def subject(self, args: dict[str, Any]) -> str:
        return path_subject(args.get("path"))

    def detail(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from app.core.tools.diffs import new_file_preview, unified_diff  # difflib: when a change is shown

        try:
            path = ctx.resolve(required_text(args, "path"))
            content = required_text(args, "content")
            _check_target(ctx, path)
            if not ctx.fs.exists(path):
                return new_file_preview(content)
            return unified_diff(load_text(ctx, path), content, ctx.display(path))
        except ToolError as exc:
            return f"cannot preview this change: {exc}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(required_text(args, "path"))
        content = required_text(args, "content")
        _check_target(ctx, path)
        from app.core.tools.file_snapshot import capture_before, file_change  # when a file changes

        existed = ctx.fs.exists(path)
        before = capture_before(ctx, path)
        ctx.fs.write_text(path, content)
        change = file_change(before, ctx)
        shown = ctx.display(path)
        lines = plural(count_lines(content), "line")
        if existed:
            return ToolResult(output=f"Wrote {lines} to {shown}.", summary=f"wrote {lines}", file_change=change)
        return ToolResult(output=f"Created {shown} ({lines}).", summary=f"created, {lines}", file_change=change)


def _check_target(ctx: ToolContext, path: Path) -> None:
    if ctx.fs.is_dir(path):
        raise ToolError(f"{ctx.display(path)} is a directory; give the path of a file inside it")
    if ctx.fs.exists(path) and not ctx.fs.is_file(path):
        kind = special_kind(os.stat(path).st_mode) or "not a regular file"
        raise ToolError(f"{ctx.display(path)} is {kind}, not a regular file; it cannot be written as one")
