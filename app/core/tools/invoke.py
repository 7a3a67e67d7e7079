"""Calling a tool so that every failure becomes a result the model can read."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.core.tools.base import Tool, ToolContext, ToolResult
from app.core.tools.errors import ToolError
from app.core.undecodable import escape, has_surrogates


async def run_tool(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """``tool.run`` with ToolError and OS errors turned into ``is_error`` results.

    Cancellation still propagates (the shell relies on it to stop its process
    group), and so do programming errors, which are bugs to surface, not to
    feed to the model.
    """
    if not isinstance(args, dict):
        return _error(f"the arguments of {tool.name} must be a JSON object")
    try:
        result = await tool.run(args, ctx)
    except ToolError as exc:
        return _error(escape(str(exc)))
    except OSError as exc:
        return _error(escape(_describe_os_error(exc)))
    # Every tool's words in one form: a file name that is not UTF-8 (shell output, an error naming
    # it) reaches the model, the record and the screen with its odd bytes as \xNN, never raw.
    if has_surrogates(result.output) or has_surrogates(result.summary):
        result = replace(result, output=escape(result.output), summary=escape(result.summary))
    return result


def _error(message: str) -> ToolResult:
    return ToolResult(output=message, is_error=True, summary=message.splitlines()[0][:80] if message else "error")


def _describe_os_error(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"
