"""Hooks in the TUI: SessionStart hooks (after the folder trust question) and /hooks. A mixin of the App."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from app.tui.screens.text_view import TextScreen

if TYPE_CHECKING:
    from app.runtime import Runtime


class HooksActions:
    runtime: Runtime | None

    @work(group="hooks", exit_on_error=False)
    async def _start_hooks(self, runtime: Runtime, source: str) -> None:
        # Folder trust is the one question for project hooks (and the rest of the project layer);
        # trusting reopens the session, whose own start runs the hooks.
        if await self.ask_folder_trust_once(runtime):  # type: ignore[attr-defined]
            return
        for problem in await runtime.start_session(source):
            self.notify(problem, severity="warning", timeout=8)  # type: ignore[attr-defined]

    def action_hooks_command(self, argument: str = "") -> None:
        runtime = self.runtime
        if runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")  # type: ignore[attr-defined]
            return
        from app.hooks.bridge import hooks_table
        from app.trust import FolderTrust

        trust = FolderTrust(runtime.paths.config_dir)
        action = argument.strip().lower()
        if action in ("trust", "untrust"):  # the same as /trust: one answer for the whole project layer
            self.action_trust_command()  # type: ignore[attr-defined]
            return
        if action:
            self.notify("Usage: /hooks [trust|untrust]", severity="warning")  # type: ignore[attr-defined]
            return
        state = trust.state(runtime.paths.project_root)
        self.push_screen(TextScreen("Hooks", hooks_table(runtime.hooks, state)))  # type: ignore[attr-defined]
