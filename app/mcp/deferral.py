"""Keeping MCP tool schemas small: past a share of the window, list them and load on demand.

Every tool schema is sent with every request. When the MCP tools' schemas together
would take more than ``mcp.deferred_share`` of the window (default 10 %), they are
deferred: only ``tool_search`` is sent, its description listing each deferred tool
by name and the first line of its description, and a tool the model loads through
it is sent in full from the next request on (as Claude Code and Qwen Code 0.24.4 do).
Should even the listing pass the share, it names the tools without descriptions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from app.core.tools.registry import ToolRegistry
from app.mcp.tools import MAX_SEARCH_RESULTS, TOOL_SEARCH, McpTool, ToolSearchTool, one_line

_INTRO = (
    "Loads the full definition of MCP tools that are listed here but not yet available to call, so you can call them. "
    "Call it with words describing what you need (e.g. 'github issue') or 'select:NAME,NAME' with exact names; "
    "the tools it returns can be called from your next step on. Deferred tools:"
)


def schema_text(tool: McpTool) -> str:
    return json.dumps(tool.schema(), ensure_ascii=False, separators=(",", ":"))


class DeferredTools:
    def __init__(self, registry: ToolRegistry, *, context_window: int, share: float, count: Callable[[str], int]) -> None:
        self.registry = registry
        self.context_window = context_window
        self.share = share
        self.count = count
        self.loaded: set[str] = set()
        self.active = False
        self.with_descriptions = True
        self._search = ToolSearchTool(self)
        self._tokens: dict[tuple[str, str], int] = {}

    @property
    def budget(self) -> int:
        return int(self.context_window * self.share)

    def mcp_tools(self) -> list[McpTool]:
        return [tool for tool in self.registry if isinstance(tool, McpTool)]

    def schema_tokens(self, tool: McpTool) -> int:
        text = schema_text(tool)
        key = (tool.name, text)
        if key not in self._tokens:
            self._tokens[key] = self.count(text)
        return self._tokens[key]

    def full_tokens(self) -> int:
        return sum(self.schema_tokens(tool) for tool in self.mcp_tools())

    def refresh(self) -> None:
        """Decide again (a server connected, failed or was reconnected)."""
        tools = self.mcp_tools()
        self.active = bool(tools) and self.share >= 0 and self.full_tokens() > self.budget
        for tool in tools:
            tool.deferred = self.active and tool.name not in self.loaded
        if self.active and TOOL_SEARCH not in self.registry:
            self.registry.register(self._search)
        elif not self.active and self.registry.get(TOOL_SEARCH) is self._search:
            self.registry.unregister(TOOL_SEARCH)
        if self.active:
            self.with_descriptions = True
            if self.count(self.listing()) > self.budget:
                self.with_descriptions = False

    def pending(self) -> list[McpTool]:
        return [tool for tool in self.mcp_tools() if tool.deferred]

    def listing(self) -> str:
        lines = [_INTRO]
        for tool in self.pending():
            lines.append(f"- {tool.name}: {one_line(tool.description)}" if self.with_descriptions else f"- {tool.name}")
        if len(lines) == 1:
            lines.append("(none left: every MCP tool is loaded)")
        return "\n".join(lines)

    def load(self, query: str) -> list[McpTool]:
        """The deferred tools the query names or matches best (at most five); they are sent from now on."""
        pending = self.pending()
        query = query.strip()
        if query.lower().startswith("select:"):
            wanted = {name.strip() for name in query[7:].split(",") if name.strip()}
            found = [tool for tool in pending if tool.name in wanted]
        else:
            words = [w for w in re.split(r"[^a-z0-9]+", query.lower()) if w]
            scored = []
            for index, tool in enumerate(pending):
                name = tool.name.lower()
                haystack = f"{name} {tool.description.lower()}"
                score = sum(3 if word in name else 1 for word in words if word in haystack)
                if score:
                    scored.append((-score, index, tool))
            found = [tool for _, _, tool in sorted(scored)[:MAX_SEARCH_RESULTS]]
        for tool in found:
            self.loaded.add(tool.name)
            tool.deferred = False
        return found
