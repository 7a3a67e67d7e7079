"""An MCP server's tool as one of the agent's tools, and ``tool_search`` for deferred ones.

An ``McpTool`` runs through the same path as a built-in tool: the permission
policy (kind EXTERNAL: "ask" unless a rule or the server's ``trust`` allows it),
the hooks (they see the ``mcp__<server>__<tool>`` name), the output cap, the record.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from app.core.images import ImagePart
from app.core.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from app.core.tools.text import clip_middle, plural
from app.mcp.connection import NotConnected, RemoteTool

if TYPE_CHECKING:
    from app.mcp.connection import ServerConnection

TOOL_SEARCH = "tool_search"
# A deferred tool's line in tool_search's description: its name and the first line of its description.
LISTING_DESCRIPTION_CHARS = 120
MAX_SEARCH_RESULTS = 5


def one_line(text: str, limit: int = LISTING_DESCRIPTION_CHARS) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


class McpTool(Tool):
    kind = ToolKind.EXTERNAL

    def __init__(self, name: str, remote: RemoteTool, connection: ServerConnection) -> None:
        self.name = name
        self.remote = remote
        self.connection = connection
        self.description = remote.description or f"{remote.name} (MCP server {connection.name})"
        self.parameters = _parameters(remote.input_schema)

    @property
    def server(self) -> str:
        return self.connection.name

    def summarize(self, args: dict[str, Any]) -> str:
        shown = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        if len(shown) > 80:
            shown = shown[:79] + "…"
        return f"{self.server} · {self.remote.name} {shown}"

    def detail(self, args: dict[str, Any], ctx: ToolContext) -> str:
        target = self.connection.config.target
        return (
            f"MCP server '{self.server}' ({self.connection.config.transport}: {target})\n"
            f"tool {self.remote.name}\n\narguments:\n{json.dumps(args, ensure_ascii=False, indent=2)}"
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            outcome = await self.connection.call(self.remote.name, args)
        except NotConnected as exc:
            raise ToolError(str(exc)) from None
        output = clip_middle(outcome.text, ctx.output_limit)
        images = tuple(ImagePart(mime=mime, data=data, source=f"{self.name}") for mime, data in outcome.images) if ctx.images else ()
        if outcome.is_error:
            return ToolResult(output=output or f"{self.remote.name} failed", is_error=True, summary="error")
        return ToolResult(output=output, summary=plural(len(outcome.text.splitlines()) or 1, "line"), images=images)


def _parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's input schema as OpenAI function parameters (an object schema, always)."""
    params = dict(schema) if isinstance(schema, dict) else {}
    params.setdefault("type", "object")
    if params.get("type") == "object":
        params.setdefault("properties", {})
    return params


class ToolSearchTool(Tool):
    """Loads the full schema of deferred MCP tools; the description lists what can be loaded."""

    name = TOOL_SEARCH
    kind = ToolKind.READ
    parameters = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Words to look for in the deferred tools' names and descriptions, or 'select:NAME,NAME' for exact names.",
            }
        },
        "required": ["query"],
    }

    def __init__(self, deferred: Any) -> None:
        # ``deferred`` is the DeferredTools that decides what is listed and loads what is asked for.
        self._deferred = deferred

    @property
    def description(self) -> str:  # type: ignore[override]
        return self._deferred.listing()

    def summarize(self, args: dict[str, Any]) -> str:
        return f"tool_search {str(args.get('query', ''))[:60]}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("query is required: words to look for, or 'select:NAME,NAME'")
        found = self._deferred.load(query)
        if not found:
            raise ToolError(f"No deferred tool matches {query!r}. The deferred tools are listed in this tool's description.")
        schemas = [tool.schema()["function"] for tool in found]
        text = (
            f"Loaded {plural(len(found), 'tool')}; from the next request on they are in your tools and can be called:\n"
            + "\n".join(json.dumps(schema, ensure_ascii=False) for schema in schemas)
        )
        return ToolResult(output=text, summary=", ".join(tool.name for tool in found)[:80])
