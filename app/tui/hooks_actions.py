"""Hooks in the TUI: the trust question (asked once per folder), SessionStart hooks, and /hooks. A mixin of the App."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.text_view import TextScreen

if TYPE_CHECKING:
    from app.runtime import Runtime


class HooksActions:
    runtime: Runtime | None

    @work(group="hooks", exit_on_error=False)
    async def _start_hooks(self, runtime: Runtime, source: str) -> None:
        from app.context.hooks.trust import FolderTrust

        project_hooks = [s for s in runtime.hooks.runner.specs if s.layer == "project"]
        trust = FolderTrust(runtime.paths.config_dir)
        if project_hooks and trust.state(runtime.paths.project_root) == "unknown":
            commands = "\n".join(f"  {s.label}" for s in project_hooks[:8])
            question = f"This project's .qwen/settings.yaml defines {len(project_hooks)} hook command(s). Trust this folder to run them?"
            answer = await self.push_screen_wait(ConfirmScreen(question, f"{commands}\n\nThe answer is remembered; /hooks trust or /hooks untrust changes it."))  # type: ignore[attr-defined]
            trust.remember(runtime.paths.project_root, bool(answer))
        for problem in await runtime.start_session(source):
            self.notify(problem, severity="warning", timeout=8)  # type: ignore[attr-defined]

    def action_hooks_command(self, argument: str = "") -> None:
        runtime = self.runtime
        if runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")  # type: ignore[attr-defined]
            return
        from app.context.hooks.bridge import hooks_table
        from app.context.hooks.trust import FolderTrust

        trust = FolderTrust(runtime.paths.config_dir)
        action = argument.strip().lower()
        if action in ("trust", "untrust"):
            trust.remember(runtime.paths.project_root, action == "trust")
            self.notify(f"This folder's project hooks will {'now run' if action == 'trust' else 'not run'} (remembered).")  # type: ignore[attr-defined]
            return
        if action:
            self.notify("Usage: /hooks [trust|untrust]", severity="warning")  # type: ignore[attr-defined]
            return
        state = trust.state(runtime.paths.project_root)
        self.push_screen(TextScreen("Hooks", hooks_table(runtime.hooks, state)))  # type: ignore[attr-defined]
