"""The session as the person handles it from the conversation: /rename, /recap, the recap
after a break, and the record of each slash command typed. A mixin of the App."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work

from app.core.llm.errors import LLMError
from app.core.session.recap import (
    NOT_ENOUGH_CONTEXT,
    RECAP_AFTER_IDLE_SECONDS,
    RECAP_BUSY,
    recap_messages,
)
from app.core.session.records import SUBTYPE_SLASH_COMMAND, TITLE_SOURCE_MANUAL
from app.core.session.titles import manual_title
from app.tui.guards import STARTING_UP
from app.tui.widgets.message_views import RECAP_LABEL
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    from app.config import Settings
    from app.runtime import Runtime

RENAME_USAGE = "Usage: /rename <title>"
RECAP_NEEDS_MODEL = "/recap needs a model: configure an endpoint first (F1 for help)."
RECAPPING = "recapping…"


class SessionActions:
    runtime: Runtime | None
    settings: Settings
    # Wall-clock seconds, for how long a resumed session was left alone.
    wall_clock: Callable[[], float] = time.time
    _recap_running: bool = False

    # -- the record -------------------------------------------------------------------------------

    def record_slash_command(self, raw: str) -> None:
        """``{phase: invocation, rawCommand}``; in a session with no record yet it waits for the first message."""
        runtime = self.runtime
        if runtime is None:
            return
        try:
            runtime.recorder.append_system(SUBTYPE_SLASH_COMMAND, {"phase": "invocation", "rawCommand": raw}, defer=True)
        except OSError as error:
            self.notify(f"Could not record the command in the session: {error}", severity="warning")  # type: ignore[attr-defined]

    # -- /rename ----------------------------------------------------------------------------------

    def action_rename_session(self, text: str = "") -> None:
        title = manual_title(text)
        if not title:
            self.notify(RENAME_USAGE, severity="warning")  # type: ignore[attr-defined]
            return
        runtime = self.runtime
        if runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        if runtime.titles is not None:
            runtime.titles.cancel()  # a manual title wins; an automatic one in flight is not needed
        try:
            runtime.recorder.append_title(title, TITLE_SOURCE_MANUAL)
        except OSError as error:
            self.notify(f"Could not rename the session: {error}", severity="error")  # type: ignore[attr-defined]
            return
        self.notify(f"Session renamed to “{title}”.")  # type: ignore[attr-defined]

    # -- /recap -----------------------------------------------------------------------------------

    def action_recap(self) -> None:
        runtime = self.runtime
        if runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        if runtime.agent is None:
            self.notify(RECAP_NEEDS_MODEL, severity="error")  # type: ignore[attr-defined]
            return
        if self._busy() or self._recap_running:  # type: ignore[attr-defined]
            self.notify(RECAP_BUSY, severity="warning")  # type: ignore[attr-defined]
            return
        if recap_messages(runtime.agent.history) is None:
            self.notify(NOT_ENOUGH_CONTEXT)  # type: ignore[attr-defined]
            return
        self._recap_running = True
        self._run_recap(runtime, automatic=False)

    def recap_after_break(self, runtime: Runtime) -> None:
        """A resumed session last written more than 5 minutes ago opens with a recap."""
        if not self.settings.sessions.recap_on_resume or runtime.agent is None or runtime.last_activity is None:
            return
        if self.wall_clock() - runtime.last_activity.timestamp() <= RECAP_AFTER_IDLE_SECONDS:
            return
        if recap_messages(runtime.agent.history) is None or self._recap_running:
            return
        self._recap_running = True
        self._run_recap(runtime, automatic=True)

    @work(group="recap", exit_on_error=False)
    async def _run_recap(self, runtime: Runtime, *, automatic: bool) -> None:
        from app.core.session.recap_query import generate_recap

        agent = runtime.agent
        assert agent is not None
        status = self.status  # type: ignore[attr-defined]
        seen = len(agent.history)
        if not automatic:
            status.state = RECAPPING
        try:
            text = await generate_recap(agent.provider, agent.history)
        except LLMError as error:
            if not automatic:  # after a break the person did not ask; a failure need not greet them
                self.notify(f"Could not make a recap: {error.message}", severity="error", timeout=8)  # type: ignore[attr-defined]
            return
        finally:
            self._recap_running = False
            if status.state == RECAPPING:
                status.state = "idle"
        if self.runtime is not runtime:
            return  # another session was opened meanwhile
        if automatic and (agent.busy or len(agent.history) != seen):
            return  # the person has started working again; an old "where you left off" would only confuse
        if not text:
            if not automatic:
                message = NOT_ENOUGH_CONTEXT if text is None else "The model answered without a recap."
                self.notify(message, severity="warning")  # type: ignore[attr-defined]
            return
        conversation = self.conversation  # type: ignore[attr-defined]
        await conversation.add(Entry(kind="recap", text=f"{RECAP_LABEL} {text}"))
        conversation.scroll_end(animate=False)
