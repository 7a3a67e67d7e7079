"""edit: replace an exact piece of a file's text."""

from __future__ import annotations

from app.dataclass import dataclass
from pathlib import Path
from typing import Any

from app.core.tools.arguments import bool_arg, path_subject, required_text, shown_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.text import load_text, plural


@dataclass
class PlannedEdit:
    """An edit worked out but not yet written: the file's text before and after."""

    path: Path
    before: str
    after: str
    replacements: int


class EditTool(Tool):
    name = "edit"
    description = (
        "Replace an exact string in a file. old_string must match the file's text exactly, "
        "whitespace and indentation included, and must occur once unless replace_all is true. "
        "Read the file first so you copy the text exactly."
    )
    kind = ToolKind.EDIT
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace root."},
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence instead of requiring exactly one.",
                "default": False,
            },
        },
        "required": ["path", "old_string", "new_string"],
    }

    def summarize(self, args: dict[str, Any]) -> str:
        return f"edit {shown_arg(args, 'path')}"

    def subject(self, args: dict[str, Any]) -> str:
        return path_subject(args.get("path"))

    def detail(self, args: dict[str, Any], ctx: ToolContext) -> str:
        try:
            planned = plan_edit(args, ctx)
        except ToolError as exc:
            return f"cannot preview this change: {exc}"
        from app.core.tools.diffs import unified_diff  # difflib: when a change is shown

        return unified_diff(planned.before, planned.after, ctx.display(planned.path))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from app.core.tools.file_snapshot import capture_before, file_change  # when a file changes

        planned = plan_edit(args, ctx)
        before = capture_before(ctx, planned.path)
        ctx.fs.write_text(planned.path, planned.after)
        count = plural(planned.replacements, "replacement")
        return ToolResult(output=f"Edited {ctx.display(planned.path)}: {count}.", summary=count, file_change=file_change(before, ctx))


def plan_edit(args: dict[str, Any], ctx: ToolContext) -> PlannedEdit:
    """The file's text before and after the edit, or the ToolError explaining why it can't be made."""
    path = ctx.resolve(required_text(args, "path"))
    old = required_text(args, "old_string")
    new = required_text(args, "new_string")
    replace_all = bool_arg(args, "replace_all")
    shown = ctx.display(path)
    if not ctx.fs.exists(path):
        raise ToolError(f"{shown} does not exist; use write_file to create a new file")
    if old == "":
        raise ToolError(
            "old_string is empty; include the text next to where the new text goes, "
            "or use write_file to create a file"
        )
    if old == new:
        raise ToolError("old_string and new_string are the same; there is nothing to change")
    before = load_text(ctx, path)
    old, new = _match_line_endings(before, old, new)
    count = before.count(old)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {shown}; read the file again and copy the exact text, "
            "including whitespace"
        )
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {shown}; add surrounding lines to make it unique "
            "or set replace_all"
        )
    after = before.replace(old, new) if replace_all else before.replace(old, new, 1)
    return PlannedEdit(path=path, before=before, after=after, replacements=count if replace_all else 1)


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """Models write "\\n"; a CRLF file needs "\\r\\n" for the text to be found and kept consistent."""
    if old in text or "\r\n" not in text or "\r\n" in old:
        return old, new
    return old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
