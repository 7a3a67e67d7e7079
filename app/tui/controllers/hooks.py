"""Hooks in the TUI: SessionStart hooks (after the folder trust question) and /hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from app.tui.screens.text_view import TextScreen

if TYPE_CHECKING:
    from app.runtime import Runtime
    from app.tui.host import TuiHost


class HooksController:
    def __init__(self, host: TuiHost, *, ask_trust_once: Callable[[Runtime], Awaitable[bool]], trust_command: Callable[[], None]) -> None:
        self.host = host
        self._ask_trust_once = ask_trust_once
        self._trust_command = trust_command  # /hooks trust is /trust

    def start(self, runtime: Runtime, source: str) -> None:
        """SessionStart hooks of a (re)opened session, after the folder trust question."""
        self.host.run_worker(partial(self._start_hooks, runtime, source), name="_start_hooks", group="hooks", exit_on_error=False)

    async def _start_hooks(self, runtime: Runtime, source: str) -> None:
        # Folder trust is the one question for project hooks (and the rest of the project layer);
        # trusting reopens the session, whose own start runs the hooks.
        if await self._ask_trust_once(runtime):
            return
        for problem in await runtime.start_session(source):
            self.host.notify(problem, severity="warning", timeout=8)

    def command(self, argument: str = "") -> None:
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        from app.hooks.bridge import hooks_table
        from app.trust import FolderTrust

        trust = FolderTrust(runtime.paths.config_dir)
        action = argument.strip().lower()
        if action in ("trust", "untrust"):  # the same as /trust: one answer for the whole project layer
            self._trust_command()
            return
        if action:
            self.host.notify("Usage: /hooks [trust|untrust]", severity="warning")
            return
        state = trust.state(runtime.paths.project_root)
        self.host.push_screen(TextScreen("Hooks", hooks_table(runtime.hooks, state)))
