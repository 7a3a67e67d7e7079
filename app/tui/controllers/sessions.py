"""The session as the person handles it from the conversation: the picker (ctrl+r, /resume), /new,
/rename, /recap, the recap after a break, and the record of each slash command typed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

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
from app.tui.messages import SessionOpened, StatusChanged
from app.tui.turn_view import tool_title
from app.tui.widgets.message_views import RECAP_LABEL
from app.tui.widgets.transcript import Entry, entries_from_history

if TYPE_CHECKING:
    from app.core.history import ToolCall
    from app.runtime import Runtime
    from app.tui.host import TuiHost

# The picker lists this many sessions; its search covers every one.
PICKER_LIMIT = 1000
RENAME_USAGE = "Usage: /rename <title>"
RECAP_NEEDS_MODEL = "/recap needs a model: configure an endpoint first (F1 for help)."
RECAPPING = "recapping…"


def loaded_instructions_line(runtime: Runtime) -> str:
    """Which instruction files this session reads, said once when it opens."""
    from app.tui.widgets.status import format_tokens

    rows = [r for r in runtime.assembler.instruction_rows() if r.status != "MISSING"]
    if not rows:
        return ""
    names = ", ".join(r.name for r in rows[:6]) + (f" and {len(rows) - 6} more" if len(rows) > 6 else "")
    tokens = format_tokens(sum(r.tokens for r in rows))
    return f"Instruction files: {names} ({tokens} tokens) · /memory show reads them as sent"


class SessionController:
    def __init__(
        self,
        host: TuiHost,
        *,
        build_runtime: Callable[..., Runtime],
        on_leave: Callable[[], None],
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.host = host
        self._build_runtime = build_runtime
        self._on_leave = on_leave  # what belongs to the session being left (a prepared suggestion)
        self.wall_clock = wall_clock  # wall-clock seconds, for how long a resumed session was left alone
        self.recap_running = False

    # -- opening one -----------------------------------------------------------------------------

    def open(self, resume: str | None = None, continue_latest: bool = False) -> None:
        """Build a (new, or resumed) session in place of the current one; the app finishes on SessionOpened."""
        work = partial(self._open, resume, continue_latest)
        self.host.run_worker(work, name="_open_session", group="session", exclusive=True, exit_on_error=False)

    async def _open(self, resume: str | None, continue_latest: bool) -> None:
        host, build = self.host, self._build_runtime
        if resume or continue_latest:
            host.post_message(StatusChanged(state="loading session…"))
        problem = ""
        try:
            runtime = await asyncio.to_thread(build, host.settings, host.paths, resume=resume, continue_latest=continue_latest)
        except Exception as exc:  # a missing or unreadable session: say so, start fresh
            problem = str(exc)
            host.notify(problem, severity="error", timeout=8)
            runtime = await asyncio.to_thread(build, host.settings, host.paths)
        self._on_leave()  # a turn prepared for the old session has no place in the new one
        previous, host.runtime = host.runtime, runtime
        if previous is not None:
            await previous.aclose()
        registry = runtime.registry

        def summarize(call: ToolCall) -> str:
            return tool_title(registry, call)

        conversation = host.conversation
        await conversation.replace_all(entries_from_history(runtime.resumed_messages, summarize))
        if problem:  # after replace_all, which would otherwise remove it at once
            await conversation.add(Entry(kind="error", text=problem))
        for warning in runtime.warnings:
            host.notify(warning, severity="warning", timeout=8)
            await conversation.add(Entry(kind="notice", text=warning))
        loaded = loaded_instructions_line(runtime)
        if loaded:
            await conversation.add(Entry(kind="notice", text=loaded))
        host.post_message(SessionOpened(runtime, resumed=bool(resume or continue_latest)))

    # -- the picker, /new ------------------------------------------------------------------------

    def picker(self) -> None:
        from app.tui.screens.sessions import SessionPickerScreen

        if not isinstance(self.host.screen, SessionPickerScreen):
            self.host.run_worker(self._open_picker, name="_open_picker", group="session-picker", exclusive=True, exit_on_error=False)

    async def _open_picker(self) -> None:
        from app.core.session.listing import list_sessions
        from app.tui.screens.sessions import SessionPickerScreen

        host = self.host
        # Off the event loop: a project can hold a thousand sessions.
        try:
            sessions = await asyncio.to_thread(list_sessions, host.paths.chats_dir, limit=PICKER_LIMIT)
        except OSError as error:  # e.g. the data dir is unreadable: say so rather than do nothing
            host.notify(f"Could not list the sessions: {error}", severity="error", timeout=8)
            return
        current = host.runtime.session_id if host.runtime else None

        def chosen(session_id: str | None) -> None:
            if session_id and session_id != current:
                self._switch(session_id)

        host.push_screen(SessionPickerScreen(sessions, current=current, chats_dir=host.paths.chats_dir), chosen)

    def _switch(self, session_id: str) -> None:
        if self.host.busy():
            self.host.notify("A turn is running; press Esc to cancel it before switching sessions.", severity="warning")
            return
        self.open(resume=session_id)

    def new_session(self) -> None:
        if self.host.busy():
            self.host.notify("A turn is running; press Esc to cancel it first.", severity="warning")
            return
        from app.tui import prompt_store

        # Words written for the old conversation would be sent out of context in the new one.
        shelved = prompt_store.shelve_draft(self.host.paths, self.host.prompt)
        self.open()
        kept = " What you had typed is in the prompt history (↑)." if shelved else ""
        self.host.notify(f"New session started; the previous one stays in ctrl+r.{kept}")

    # -- the record -------------------------------------------------------------------------------

    def record_command(self, raw: str) -> None:
        """``{phase: invocation, rawCommand}``; in a session with no record yet it waits for the first message."""
        runtime = self.host.runtime
        if runtime is None:
            return
        try:
            runtime.recorder.append_system(SUBTYPE_SLASH_COMMAND, {"phase": "invocation", "rawCommand": raw}, defer=True)
        except OSError as error:
            self.host.notify(f"Could not record the command in the session: {error}", severity="warning")

    # -- /rename ----------------------------------------------------------------------------------

    def rename(self, text: str = "") -> None:
        title = manual_title(text)
        if not title:
            self.host.notify(RENAME_USAGE, severity="warning")
            return
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        if runtime.titles is not None:
            runtime.titles.cancel()  # a manual title wins; an automatic one in flight is not needed
        try:
            runtime.recorder.append_title(title, TITLE_SOURCE_MANUAL)
        except OSError as error:
            self.host.notify(f"Could not rename the session: {error}", severity="error")
            return
        self.host.notify(f"Session renamed to “{title}”.")

    # -- /recap -----------------------------------------------------------------------------------

    def recap(self) -> None:
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        if runtime.agent is None:
            self.host.notify(RECAP_NEEDS_MODEL, severity="error")
            return
        if self.host.busy() or self.recap_running:
            self.host.notify(RECAP_BUSY, severity="warning")
            return
        if recap_messages(runtime.agent.history) is None:
            self.host.notify(NOT_ENOUGH_CONTEXT)
            return
        self.recap_running = True
        self._start_recap(runtime, automatic=False)

    def recap_after_break(self, runtime: Runtime) -> None:
        """A resumed session last written more than 5 minutes ago opens with a recap."""
        if not self.host.settings.sessions.recap_on_resume or runtime.agent is None or runtime.last_activity is None:
            return
        if self.wall_clock() - runtime.last_activity.timestamp() <= RECAP_AFTER_IDLE_SECONDS:
            return
        if recap_messages(runtime.agent.history) is None or self.recap_running:
            return
        self.recap_running = True
        self._start_recap(runtime, automatic=True)

    def _start_recap(self, runtime: Runtime, *, automatic: bool) -> None:
        work = partial(self._run_recap, runtime, automatic=automatic)
        self.host.run_worker(work, name="_run_recap", group="recap", exit_on_error=False)

    async def _run_recap(self, runtime: Runtime, *, automatic: bool) -> None:
        from app.core.session.recap_query import generate_recap

        agent = runtime.agent
        assert agent is not None
        seen = len(agent.history)
        if not automatic:
            self.host.post_message(StatusChanged(state=RECAPPING))
        try:
            text = await generate_recap(agent.provider, agent.history)
        except LLMError as error:
            if not automatic:  # after a break the person did not ask; a failure need not greet them
                self.host.notify(f"Could not make a recap: {error.message}", severity="error", timeout=8)
            return
        finally:
            self.recap_running = False
            self.host.post_message(StatusChanged(state="idle", if_state=RECAPPING))
        if self.host.runtime is not runtime:
            return  # another session was opened meanwhile
        if automatic and (agent.busy or len(agent.history) != seen):
            return  # the person has started working again; an old "where you left off" would only confuse
        if not text:
            if not automatic:
                message = NOT_ENOUGH_CONTEXT if text is None else "The model answered without a recap."
                self.host.notify(message, severity="warning")
            return
        conversation = self.host.conversation
        await conversation.add(Entry(kind="recap", text=f"{RECAP_LABEL} {text}"))
        conversation.scroll_end(animate=False)
