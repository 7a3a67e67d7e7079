"""MCP servers in the TUI: connected after the first frame, failures said once, /mcp and /mcp reconnect. A mixin of the App."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from app.tui.screens.text_view import TextScreen

if TYPE_CHECKING:
    from app.mcp.connection import ServerConnection
    from app.runtime import Runtime

USAGE = "Usage: /mcp (list the servers) or /mcp reconnect [name]"


class McpActions:
    runtime: Runtime | None

    def start_mcp(self, runtime: Runtime) -> None:
        """Servers connect in the background; the conversation is usable meanwhile."""
        manager = runtime.mcp
        if manager is None:
            return
        manager.listeners.append(lambda connection: self._mcp_changed(runtime, connection))
        runtime.start_mcp()

    def is_mcp_prompt(self, text: str) -> bool:
        """Whether the typed line is a connected server's prompt (``/mcp__<server>__<prompt> ARGS``)."""
        runtime = self.runtime
        if runtime is None or runtime.mcp is None:
            return False
        from app.mcp.mentions import is_prompt_command

        return is_prompt_command(runtime.mcp, text)

    async def expand_mcp(self, prompt: str) -> str | None:
        """The request to send: an MCP prompt's text, @server:uri resources attached; None (after saying why) when it cannot be."""
        runtime = self.runtime
        if runtime is None or runtime.mcp is None:
            return prompt
        from app.mcp.connection import NotConnected
        from app.mcp.mentions import MentionError, expand_mcp

        try:
            expanded, problems = await expand_mcp(runtime.mcp, prompt)
        except (MentionError, NotConnected) as exc:
            self.notify(str(exc).splitlines()[0], severity="error", timeout=10)  # type: ignore[attr-defined]
            return None
        for problem in problems:
            self.notify(problem, severity="warning", timeout=8)  # type: ignore[attr-defined]
        return expanded

    def _mcp_changed(self, runtime: Runtime, connection: ServerConnection) -> None:
        if runtime is not self.runtime:
            return  # a session that was just replaced
        if connection.status == "failed":
            self.notify(  # type: ignore[attr-defined]
                f"MCP server '{connection.name}' failed: {connection.error}. /mcp shows its stderr; /mcp reconnect {connection.name} tries again.",
                severity="warning",
                timeout=10,
            )

    def action_mcp_command(self, argument: str = "") -> None:
        runtime = self.runtime
        if runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")  # type: ignore[attr-defined]
            return
        words = argument.split()
        if words and words[0].lower() == "reconnect" and len(words) <= 2:
            self._mcp_reconnect(runtime, words[1] if len(words) == 2 else None)
            return
        if words:
            self.notify(USAGE, severity="warning")  # type: ignore[attr-defined]
            return
        self.push_screen(TextScreen("MCP servers", mcp_text(runtime), subtitle="/mcp reconnect NAME retries one"))  # type: ignore[attr-defined]

    @work(group="mcp", exit_on_error=False)
    async def _mcp_reconnect(self, runtime: Runtime, name: str | None) -> None:
        manager = runtime.mcp
        if manager is None:
            self.notify("No MCP servers are configured (mcpServers in settings.yaml).", severity="warning")  # type: ignore[attr-defined]
            return
        names = [name] if name else [c.name for c in manager.connections.values() if c.status != "connected"]
        if not names:
            self.notify("Every MCP server is connected.")  # type: ignore[attr-defined]
            return
        for server in names:
            try:
                connection = await manager.reconnect(server)
            except KeyError as exc:
                self.notify(str(exc.args[0]), severity="warning")  # type: ignore[attr-defined]
                return
            await connection.wait_settled(manager.connect_timeout + 1)
            if connection.status == "connected":
                self.notify(f"MCP server '{server}' reconnected: {len(connection.tools)} tools.")  # type: ignore[attr-defined]


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
