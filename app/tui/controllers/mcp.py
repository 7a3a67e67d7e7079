"""MCP servers in the TUI: connected after the first frame, failures said once, /mcp and /mcp reconnect."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from app.tui.screens.text_view import TextScreen

if TYPE_CHECKING:
    from app.mcp.connection import ServerConnection
    from app.runtime import Runtime
    from app.tui.host import TuiHost

USAGE = "Usage: /mcp (list the servers) or /mcp reconnect [name]"


class McpController:
    def __init__(self, host: TuiHost) -> None:
        self.host = host

    def start(self, runtime: Runtime) -> None:
        """Servers connect in the background; the conversation is usable meanwhile."""
        manager = runtime.mcp
        if manager is None:
            return
        manager.listeners.append(lambda connection: self._mcp_changed(runtime, connection))
        runtime.start_mcp()

    def is_prompt(self, text: str) -> bool:
        """Whether the typed line is a connected server's prompt (``/mcp__<server>__<prompt> ARGS``)."""
        runtime = self.host.runtime
        if runtime is None or runtime.mcp is None:
            return False
        from app.mcp.mentions import is_prompt_command

        return is_prompt_command(runtime.mcp, text)

    async def expand(self, prompt: str) -> str | None:
        """The request to send: an MCP prompt's text, @server:uri resources attached; None (after saying why) when it cannot be."""
        runtime = self.host.runtime
        if runtime is None or runtime.mcp is None:
            return prompt
        from app.mcp.connection import NotConnected
        from app.mcp.mentions import MentionError, expand_mcp

        try:
            expanded, problems = await expand_mcp(runtime.mcp, prompt)
        except (MentionError, NotConnected) as exc:
            self.host.notify(str(exc).splitlines()[0], severity="error", timeout=10)
            return None
        for problem in problems:
            self.host.notify(problem, severity="warning", timeout=8)
        return expanded

    def _mcp_changed(self, runtime: Runtime, connection: ServerConnection) -> None:
        if runtime is not self.host.runtime:
            return  # a session that was just replaced
        if connection.status == "failed":
            self.host.notify(
                f"MCP server '{connection.name}' failed: {connection.error}. /mcp shows its stderr; /mcp reconnect {connection.name} tries again.",
                severity="warning",
                timeout=10,
            )

    def command(self, argument: str = "") -> None:
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        words = argument.split()
        if words and words[0].lower() == "reconnect" and len(words) <= 2:
            work = partial(self._mcp_reconnect, runtime, words[1] if len(words) == 2 else None)
            self.host.run_worker(work, name="_mcp_reconnect", group="mcp", exit_on_error=False)
            return
        if words:
            self.host.notify(USAGE, severity="warning")
            return
        self.host.push_screen(TextScreen("MCP servers", mcp_text(runtime), subtitle="/mcp reconnect NAME retries one"))

    async def _mcp_reconnect(self, runtime: Runtime, name: str | None) -> None:
        manager = runtime.mcp
        if manager is None:
            self.host.notify("No MCP servers are configured (mcpServers in settings.yaml).", severity="warning")
            return
        names = [name] if name else [c.name for c in manager.connections.values() if c.status != "connected"]
        if not names:
            self.host.notify("Every MCP server is connected.")
            return
        for server in names:
            try:
                connection = await manager.reconnect(server)
            except KeyError as exc:
                self.host.notify(str(exc.args[0]), severity="warning")
                return
            await connection.wait_settled(manager.connect_timeout + 1)
            if connection.status == "connected":
                self.host.notify(f"MCP server '{server}' reconnected: {len(connection.tools)} tools.")


def mcp_text(runtime: Runtime) -> str:
    from app.mcp.listing import servers_text

    manager = runtime.mcp
    if manager is None:
        return servers_text([], problems=[])
    deferred = manager.deferred
    return servers_text(
        manager.rows(runtime.assembler.counter.count),
        problems=manager.problems,
        deferred=bool(deferred and deferred.active),
        budget=deferred.budget if deferred else 0,
    )
