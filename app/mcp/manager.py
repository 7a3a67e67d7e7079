"""Every configured MCP server: started in the background, its tools registered as they are listed.

The manager never blocks: ``start()`` returns at once and each server connects in
its own task. When one is listed, its tools join the registry as
``mcp__<server>__<tool>`` (a trusted server's also join the policy's allow list);
when one fails, its tools stay registered and answer with the failure and its
stderr, so the tools block sent to the model does not change under it. Project
servers start only in a trusted folder (``trusted``, decided by the caller).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import field
from app.dataclass import dataclass
from typing import Any

from app.core.tools.permission_rules import PermissionRule
from app.core.tools.permissions import PermissionPolicy
from app.core.tools.registry import ToolRegistry
from app.mcp.config import parse_servers
from app.mcp.connection import CONNECTED, ServerConnection
from app.mcp.deferral import DeferredTools
from app.mcp.names import tool_name, unique
from app.mcp.tools import McpTool, one_line


@dataclass
class ServerRow:
    """One server as ``/mcp`` and ``mcp list`` show it."""

    name: str
    layer: str
    transport: str
    target: str
    status: str
    error: str = ""
    stderr_tail: str = ""
    trust: bool = False
    tools: list[dict[str, Any]] = field(default_factory=list)  # name, remote, description, tokens, deferred
    prompts: list[str] = field(default_factory=list)  # as slash commands, with their arguments
    resources: list[str] = field(default_factory=list)  # as @server:uri mentions
    schema_tokens: int = 0  # every tool's full schema
    sent_tokens: int = 0  # what this server's tools add to each request now (listing lines when deferred)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class McpManager:
    def __init__(
        self,
        servers: dict[str, dict],
        *,
        trusted: bool,
        registry: ToolRegistry,
        policy: PermissionPolicy | None = None,
        connect_timeout: float = 30.0,
        deferred: DeferredTools | None = None,
        health_interval: float | None = None,
        register_tools: bool = True,
    ) -> None:
        configs, self.problems = parse_servers(servers, trusted=trusted)
        extra = {} if health_interval is None else {"health_interval": health_interval}
        self.registry = registry
        self.policy = policy
        self.connect_timeout = connect_timeout
        self.deferred = deferred
        # Plan mode: servers connect (for /mcp, prompts, resources) but their tools are not offered.
        self.register_tools = register_tools
        self.connections: dict[str, ServerConnection] = {
            config.name: ServerConnection(config, connect_timeout=connect_timeout, on_change=self._changed, **extra)
            for config in configs
        }
        self.listeners: list[Callable[[ServerConnection], None]] = []
        self._registered: dict[str, list[str]] = {}
        self._trust_rules: dict[str, list[PermissionRule]] = {}

    def __bool__(self) -> bool:
        return bool(self.connections)

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Connect every server in the background (call on the running event loop)."""
        for connection in self.connections.values():
            connection.start()

    async def wait_listed(self, timeout: float | None = None) -> bool:
        """Wait (bounded) until every server is connected or has failed; False when one is still starting."""
        if not self.connections:
            return True
        limit = self.connect_timeout + 1 if timeout is None else timeout
        results = await asyncio.gather(*(c.wait_settled(limit) for c in self.connections.values()))
        return all(results)

    async def reconnect(self, name: str) -> ServerConnection:
        connection = self.connections.get(name)
        if connection is None:
            known = ", ".join(self.connections) or "none configured"
            raise KeyError(f"no MCP server named '{name}' (servers: {known})")
        await connection.restart()
        return connection

    async def aclose(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)

    # -- tools ------------------------------------------------------------------------------

    def _changed(self, connection: ServerConnection) -> None:
        if connection.status == CONNECTED and self.register_tools:
            self._register(connection)
        if self.deferred is not None:
            self.deferred.refresh()
        for listener in list(self.listeners):
            try:
                listener(connection)
            except Exception:
                pass

    def _register(self, connection: ServerConnection) -> None:
        for name in self._registered.pop(connection.name, []):
            self.registry.unregister(name)
        if self.policy is not None:
            for rule in self._trust_rules.pop(connection.name, []):
                if rule in self.policy.extra_allow:
                    self.policy.extra_allow.remove(rule)
        taken = set(self.registry.names())
        names: list[str] = []
        for remote in connection.tools:
            name = unique(tool_name(connection.name, remote.name), taken)
            taken.add(name)
            self.registry.register(McpTool(name, remote, connection))
            names.append(name)
        self._registered[connection.name] = names
        if connection.config.trust and self.policy is not None:
            # Deny and ask rules still come first: trust only replaces the mode's "ask".
            rules = [PermissionRule(name) for name in names]
            self.policy.extra_allow.extend(rules)
            self._trust_rules[connection.name] = rules

    def tools_of(self, server: str) -> list[McpTool]:
        names = set(self._registered.get(server, []))
        return [tool for tool in self.registry if isinstance(tool, McpTool) and tool.name in names]

    # -- what is shown ----------------------------------------------------------------------

    def rows(self, count: Callable[[str], int]) -> list[ServerRow]:
        from app.mcp.deferral import schema_text
        from app.mcp.mentions import usage
        from app.mcp.names import sanitize

        rows: list[ServerRow] = []
        for connection in self.connections.values():
            config = connection.config
            row = ServerRow(
                name=connection.name,
                layer=config.layer,
                transport=config.transport,
                target=config.target,
                status=connection.status,
                error=connection.error,
                stderr_tail=connection.stderr_tail() if connection.status != CONNECTED else "",
                trust=config.trust,
                prompts=[usage(f"mcp__{sanitize(connection.name)}__{sanitize(p.name)}", p) for p in connection.prompts],
                resources=[f"@{connection.name}:{r.uri}" for r in connection.resources],
            )
            for tool in self.tools_of(connection.name):
                full = self.deferred.schema_tokens(tool) if self.deferred is not None else count(schema_text(tool))
                sent = count(f"- {tool.name}: {one_line(tool.description)}\n") if tool.deferred else full
                row.tools.append({"name": tool.name, "remote": tool.remote.name, "description": one_line(tool.description), "tokens": full, "deferred": tool.deferred})
                row.schema_tokens += full
                row.sent_tokens += sent
            rows.append(row)
        return rows
