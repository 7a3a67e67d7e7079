"""Folder trust in the TUI: the question on first open, /trust, and /permissions. A mixin of the App.

Trusting (or untrusting) applies at once: the settings are loaded again with the same
command-line flags and the session is reopened (resumed, so the conversation is kept)
with the new project layer, hooks and skill grants.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from app.tui.screens.text_view import TextScreen
from app.tui.screens.trust import TrustScreen

if TYPE_CHECKING:
    from app.runtime import Runtime


class TrustActions:
    runtime: Runtime | None

    async def ask_folder_trust_once(self, runtime: Runtime) -> bool:
        """On first open of an untrusted folder that brings a project layer; True when the session was reopened."""
        from app.trust import FolderTrust

        changes = runtime.untrusted_changes()
        trust = FolderTrust(runtime.paths.config_dir)
        if not changes or trust.state(runtime.paths.project_root) != "unknown":
            return False
        answer = await self.push_screen_wait(TrustScreen(runtime.paths.project_root, changes))  # type: ignore[attr-defined]
        trust.remember(runtime.paths.project_root, bool(answer))
        if answer:
            return self._reopen_with_trust(runtime)
        self.notify("This folder's project layer stays ignored (remembered; /trust changes it).")  # type: ignore[attr-defined]
        return False

    def action_trust_command(self) -> None:
        runtime = self.runtime
        if runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")  # type: ignore[attr-defined]
            return
        self._trust_dialog(runtime)

    @work(group="trust", exit_on_error=False)
    async def _trust_dialog(self, runtime: Runtime) -> None:
        from app.trust import FolderTrust
        from app.cli.trust import folder_changes

        trust = FolderTrust(runtime.paths.config_dir)
        answer = trust.answer(runtime.paths.project_root)
        changes = folder_changes(runtime.paths)
        screen = TrustScreen(runtime.paths.project_root, changes, state=answer.state, inherited_from=answer.folder)
        value = await self.push_screen_wait(screen)  # type: ignore[attr-defined]
        trusted = bool(value)
        was = answer.state == "trusted"
        trust.remember(runtime.paths.project_root, trusted)
        if trusted == was:
            self.notify(f"This folder stays {'trusted' if trusted else 'untrusted'}.")  # type: ignore[attr-defined]
            return
        if self._busy():  # type: ignore[attr-defined]
            self.notify("Remembered; it applies when the running turn is over and you start a new session.", severity="warning")  # type: ignore[attr-defined]
            return
        self._reopen_with_trust(runtime)

    def _reopen_with_trust(self, runtime: Runtime) -> bool:
        """Load the settings again (same flags) and reopen this session with them."""
        from app.config import SettingsError, load_settings

        settings = self.settings  # type: ignore[attr-defined]
        if settings.demo:
            self.notify("Remembered; restart to apply it (the demo keeps its own settings).")  # type: ignore[attr-defined]
            return False
        try:
            fresh = load_settings(runtime.paths, settings.cli_flags)
        except SettingsError as error:
            self.notify(f"Remembered, but the settings cannot be loaded: {error}. Fix the file and restart.", severity="error", timeout=10)  # type: ignore[attr-defined]
            return False
        self.settings = fresh  # type: ignore[attr-defined]
        state = "trusted: its project layer now applies" if fresh.project_layer.trusted else "not trusted: its project layer is ignored"
        self.notify(f"This folder is {state}.")  # type: ignore[attr-defined]
        resume = runtime.session_id if runtime.recorder.path.exists() else None
        self._open_session(resume=resume)  # type: ignore[attr-defined]
        return True

    def action_permissions_command(self) -> None:
        runtime = self.runtime
        if runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")  # type: ignore[attr-defined]
            return
        from app.cli.permissions import rules_report

        report = rules_report(runtime.settings, runtime.policy, folder_trusted=runtime.folder_trusted)
        self.push_screen(TextScreen("Permissions", report, subtitle="agentctx-tui permissions check TOOL(ARG) tests a call"))  # type: ignore[attr-defined]
