"""The set of tools an agent may call, and the subsets forks and plan mode get."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from app.core.tools.base import Tool, ToolKind
from app.core.tools.edit import EditTool
from app.core.tools.glob_tool import GlobTool
from app.core.tools.grep_search import GrepSearchTool
from app.core.tools.list_directory import ListDirectoryTool
from app.core.tools.read_file import ReadFileTool
from app.core.tools.shell import ShellTool
from app.core.tools.write_file import WriteFileTool


class ToolRegistry:
    """Tools by name, in registration order (which is the order the model sees them)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if not tool.name:
            raise ValueError(f"{type(tool).__name__} has no name")
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function-tool declarations of the tools not deferred; unknown names are skipped."""
        chosen = self if names is None else self.restricted(names)
        return [tool.schema() for tool in chosen if not tool.deferred]

    def restricted(self, names: Iterable[str]) -> ToolRegistry:
        """Only the named tools, in this registry's order; unknown names are ignored
        so a stale name in a skill or agent file never stops an agent from starting."""
        wanted = set(names)
        return ToolRegistry(tool for tool in self._tools.values() if tool.name in wanted)

    def read_only(self) -> ToolRegistry:
        return ToolRegistry(tool for tool in self._tools.values() if tool.kind is ToolKind.READ)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)


def builtin_registry() -> ToolRegistry:
    """The seven built-in tools; reading tools first, which is how the model sees them listed."""
    return ToolRegistry(
        [
            ReadFileTool(),
            ListDirectoryTool(),
            GlobTool(),
            GrepSearchTool(),
            EditTool(),
            WriteFileTool(),
            ShellTool(),
        ]
    )
