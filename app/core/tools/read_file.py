"""read_file: a text file with line numbers, a window at a time; an image as an image."""

from __future__ import annotations

from typing import Any

from app.core.images import MAX_IMAGE_BYTES, ImagePart, sniff_image_mime
from app.core.tools.arguments import int_arg, path_subject, required_text, shown_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.text import load_bytes, plural, split_lines, text_of

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000


class ReadFileTool(Tool):
    name = "read_file"
    description = (
        "Read a text file from the workspace. Lines are numbered from 1. Reads up to "
        f"{DEFAULT_LIMIT} lines by default; use offset and limit to read a window of a long file. "
        "An image file (PNG, JPEG, GIF, WebP) is returned as an image when the model takes images."
    )
    kind = ToolKind.READ
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path, relative to the workspace root."},
            "offset": {"type": "integer", "description": "1-based line number to start from.", "minimum": 1},
            "limit": {"type": "integer", "description": "How many lines to read.", "minimum": 1},
        },
        "required": ["path"],
    }

    def summarize(self, args: dict[str, Any]) -> str:
        path = shown_arg(args, "path")
        window = _window_label(args.get("offset"), args.get("limit"))
        return f"read_file {path}{window}"

    def subject(self, args: dict[str, Any]) -> str:
        return path_subject(args.get("path"))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(required_text(args, "path"))
        offset = int_arg(args, "offset", minimum=0) or 1  # 0 is read as "from the start"
        limit = int_arg(args, "limit", minimum=1) or DEFAULT_LIMIT
        data = load_bytes(ctx, path)
        shown = ctx.display(path)
        mime = sniff_image_mime(data[:16])
        if mime is not None:
            return _image_result(data, mime, shown, ctx.images)
        lines = split_lines(text_of(data, shown))
        if not lines:
            return ToolResult(output=f"({shown} is empty)", summary="0 lines")
        if offset > len(lines):
            raise ToolError(f"offset {offset} is past the end of {shown}, which has {plural(len(lines), 'line')}")
        return _numbered_window(lines, offset, limit, ctx.output_limit)


def _image_result(data: bytes, mime: str, shown: str, send: bool) -> ToolResult:
    kind = mime.split("/", 1)[1].upper()
    size = f"{max(1, round(len(data) / 1024)):,} KB"
    if not send:
        return ToolResult(
            output=f"{shown} is a {kind} image ({size}). This model is not sent images "
            "(set model.vision: true in settings.yaml if it takes them); describe it from its name and context instead.",
            summary=f"{kind} image, not sent",
        )
    if len(data) > MAX_IMAGE_BYTES:
        return ToolResult(
            output=f"{shown} is a {kind} image of {size}, larger than the {MAX_IMAGE_BYTES // (1024 * 1024)} MB sent to the model.",
            summary=f"{kind} image, too large to send",
        )
    image = ImagePart.from_bytes(data, mime, source=f"read_file {shown}")
    return ToolResult(output=f"{shown} is a {kind} image ({size}); it follows as an image.", summary=f"{kind} image, {size}", images=(image,))


def _numbered_window(lines: list[str], offset: int, limit: int, char_budget: int) -> ToolResult:
    out: list[str] = []
    used = 0
    end = min(len(lines), offset - 1 + limit)
    line_no = offset
    while line_no <= end:
        row = f"{line_no:>6}\t{_cut(lines[line_no - 1])}"
        # Always show at least one line, then stop before the output gets too long to be useful.
        if out and char_budget > 0 and used + len(row) > char_budget:
            break
        out.append(row)
        used += len(row) + 1
        line_no += 1
    remaining = len(lines) - (line_no - 1)
    if remaining > 0:
        out.append(f"… {plural(remaining, 'more line')}; read with offset={line_no}")
    shown_count = line_no - offset
    whole = offset == 1 and remaining == 0
    summary = plural(shown_count, "line") if whole else f"{shown_count} of {plural(len(lines), 'line')}"
    return ToolResult(output="\n".join(out), summary=summary)


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [line cut, {len(line) - MAX_LINE_CHARS} more chars]"


def _window_label(offset: Any, limit: Any) -> str:
    start = offset if isinstance(offset, int) and offset > 0 else None
    count = limit if isinstance(limit, int) and limit > 0 else None
    if start is None and count is None:
        return ""
    first = start or 1
    last = str(first + count - 1) if count else ""
    return f":{first}-{last}"
