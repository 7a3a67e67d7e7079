"""Folder trust in the TUI: the question on first open, /trust, and /permissions.

Trusting (or untrusting) applies at once: the settings are loaded again with the same
command-line flags and the session is reopened (resumed, so the conversation is kept)
with the new project layer, hooks and skill grants.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from app.tui.screens.text_view import TextScreen
from app.tui.screens.trust import TrustScreen

if TYPE_CHECKING:
    from app.runtime import Runtime
    from app.tui.host import TuiHost


class TrustController:
    def __init__(self, host: TuiHost, *, open_session: Callable[..., None]) -> None:
        self.host = host
        self._open_session = open_session  # trusting reopens the session with the new project layer

    async def ask_once(self, runtime: Runtime) -> bool:
        """On first open of an untrusted folder that brings a project layer; True when the session was reopened."""
        from app.trust import FolderTrust

        changes = runtime.untrusted_changes()
        trust = FolderTrust(runtime.paths.config_dir)
        if not changes or trust.state(runtime.paths.project_root) != "unknown":
            return False
        answer = await self.host.push_screen_wait(TrustScreen(runtime.paths.project_root, changes))
        trust.remember(runtime.paths.project_root, bool(answer))
        if answer:
            return self._reopen_with_trust(runtime)
        self.host.notify("This folder's project layer stays ignored (remembered; /trust changes it).")
        return False

    def command(self) -> None:
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        self.host.run_worker(partial(self._trust_dialog, runtime), name="_trust_dialog", group="trust", exit_on_error=False)

    async def _trust_dialog(self, runtime: Runtime) -> None:
        from app.folder_changes import folder_changes
        from app.trust import FolderTrust

        trust = FolderTrust(runtime.paths.config_dir)
        answer = trust.answer(runtime.paths.project_root)
        changes = folder_changes(runtime.paths)
        screen = TrustScreen(runtime.paths.project_root, changes, state=answer.state, inherited_from=answer.folder)
        value = await self.host.push_screen_wait(screen)
        trusted = bool(value)
        was = answer.state == "trusted"
        trust.remember(runtime.paths.project_root, trusted)
        if trusted == was:
            self.host.notify(f"This folder stays {'trusted' if trusted else 'untrusted'}.")
            return
        if self.host.busy():
            self.host.notify("Remembered; it applies when the running turn is over and you start a new session.", severity="warning")
            return
        self._reopen_with_trust(runtime)

    def _reopen_with_trust(self, runtime: Runtime) -> bool:
        """Load the settings again (same flags) and reopen this session with them."""
        from app.config import SettingsError, load_settings

        settings = self.host.settings
        if settings.demo:
            self.host.notify("Remembered; restart to apply it (the demo keeps its own settings).")
            return False
        try:
            fresh = load_settings(runtime.paths, settings.cli_flags)
        except SettingsError as error:
            self.host.notify(f"Remembered, but the settings cannot be loaded: {error}. Fix the file and restart.", severity="error", timeout=10)
            return False
        self.host.settings = fresh
        state = "trusted: its project layer now applies" if fresh.project_layer.trusted else "not trusted: its project layer is ignored"
        self.host.notify(f"This folder is {state}.")
        resume = runtime.session_id if runtime.recorder.path.exists() else None
        self._open_session(resume=resume)
        return True

    def permissions(self) -> None:
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        from app.permissions_report import rules_report

        report = rules_report(runtime.settings, runtime.policy, folder_trusted=runtime.folder_trusted)
        self.host.push_screen(TextScreen("Permissions", report, subtitle="agentctx-tui permissions check TOOL(ARG) tests a call"))
