"""Calling a tool so that every failure becomes a result the model can read."""

from __future__ import annotations

from typing import Any

from app.core.tools.base import Tool, ToolContext, ToolResult
from app.core.tools.errors import ToolError


async def run_tool(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """``tool.run`` with ToolError and OS errors turned into ``is_error`` results.

    Cancellation still propagates (the shell relies on it to stop its process
    group), and so do programming errors, which are bugs to surface, not to
    feed to the model.
    """
    if not isinstance(args, dict):
        return _error(f"the arguments of {tool.name} must be a JSON object")
    try:
        return await tool.run(args, ctx)
    except ToolError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(_describe_os_error(exc))


def _error(message: str) -> ToolResult:
    return ToolResult(output=message, is_error=True, summary=message.splitlines()[0][:80] if message else "error")


def _describe_os_error(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"
