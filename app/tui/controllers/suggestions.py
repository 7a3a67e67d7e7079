"""Follow-up suggestions in the TUI: shown greyed in the prompt, prepared speculatively while you read,
accepted with Tab or Enter, dismissed by typing. The line above the prompt says how the preparation goes."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.content import Content

from app.core.tools.text import plural
from app.tui.messages import StatusChanged
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    from app.core.speculation import Speculation
    from app.tui.host import TuiHost
    from app.tui.turn_view import TurnView


class SuggestionController:
    def __init__(self, host: TuiHost, *, run_turn: Callable[[str], None], new_view: Callable[[], TurnView]) -> None:
        self.host = host
        self._run_turn = run_turn
        self._new_view = new_view  # a prepared turn's events are shown as a turn's are
        self.suggestion = ""
        self.speculation: Speculation | None = None
        self._finishing: Speculation | None = None  # accepted while still running: Esc stops it

    def finishing(self) -> bool:
        """An accepted suggestion is still running (Esc stops it)."""
        return self._finishing is not None

    def stop_finishing(self) -> bool:
        """Esc while an accepted suggestion finishes: stop it (nothing is applied)."""
        speculation, self._finishing = self._finishing, None
        if speculation is None:
            return False
        speculation.abort()
        return True

    # -- after an answer -----------------------------------------------------------------------

    def after_answer(self) -> None:
        """Called when a turn finished: look for a next step, off the request path."""
        runtime = self.host.runtime
        if runtime is None or runtime.agent is None or not runtime.settings.suggestions.enabled:
            return
        self.host.run_worker(self._make_suggestion, name="_make_suggestion", group="suggestion", exclusive=True, exit_on_error=False)

    async def _make_suggestion(self) -> None:
        from app.core.speculation import Speculation, suggest_next

        runtime = self.host.runtime
        assert runtime is not None and runtime.agent is not None
        try:
            suggestion = await suggest_next(runtime.agent.provider, list(runtime.agent.history))
        except Exception:  # no suggestion is a fine outcome; a failing side query must not bother anyone
            return
        prompt = self.host.prompt
        if not suggestion or prompt.text or runtime.agent.busy:
            return
        self.suggestion = suggestion
        prompt.show_suggestion(suggestion)
        if runtime.settings.suggestions.speculate:
            self.speculation = Speculation.start(runtime.agent, suggestion)
            self._show_speculation_state()
            watch = partial(self._watch_speculation, self.speculation)
            self.host.run_worker(watch, name="_watch_speculation", group="speculation", exit_on_error=False)

    async def _watch_speculation(self, speculation: Speculation) -> None:
        await speculation.wait()
        if speculation is self.speculation:
            self._show_speculation_state()

    def _show_speculation_state(self) -> None:
        speculation = self.speculation
        if not self.suggestion or speculation is None:
            self.host.show_hint(None)
            return
        if speculation.running:
            text = f"[$accent]⟳[/] preparing the suggestion in a sandbox copy: {escape(self.suggestion)}"
        elif speculation.status == "ready":
            text = f"[$success]✓[/] ready: {escape(self._change_summary(speculation))} · Tab or Enter accepts · typing dismisses"
        else:
            text = f"[$warning]![/] could not prepare it ({escape(speculation.error[:80])}); Tab or Enter sends it as a normal request"
        self.host.show_hint(Content.from_markup(text))

    def _change_summary(self, speculation: Speculation) -> str:
        changes = speculation.changes()
        if not changes:
            return "no file changes"
        root = speculation.overlay.root
        names = [change.path.relative_to(root).as_posix() if change.path.is_relative_to(root) else str(change.path) for change in changes[:3]]
        more = f" and {len(changes) - 3} more" if len(changes) > 3 else ""
        added, removed = sum(c.added for c in changes), sum(c.removed for c in changes)
        return f"{plural(len(changes), 'file')} would change (+{added} −{removed}): {', '.join(names)}{more}"

    # -- the person's answer --------------------------------------------------------------------

    def drop_speculation(self) -> None:
        """Stop a prepared or running speculation and delete its shadow copy (the screen is left alone)."""
        if self.speculation is not None:
            self.speculation.abort()
            self.speculation = None

    def dismiss(self) -> None:
        self.drop_speculation()
        if self.suggestion:
            self.suggestion = ""
            self.host.prompt.show_suggestion("")
            self.host.show_hint(None)

    def accept(self) -> None:
        self.host.run_worker(self._accept_suggestion, name="_accept_suggestion", group="turn", exit_on_error=False)

    async def _accept_suggestion(self) -> None:
        from app.core.overlay import OverlayConflict

        host = self.host
        suggestion, speculation = self.suggestion, self.speculation
        self.suggestion, self.speculation = "", None
        host.prompt.show_suggestion("")
        if not suggestion:
            return
        if speculation is not None and speculation.running:
            host.post_message(StatusChanged(state="finishing the suggested turn… (Esc stops it)"))
            self._finishing = speculation
            try:
                await speculation.wait()
            finally:
                self._finishing = None
            if speculation.status == "cancelled":
                host.prompt.load_text(suggestion)
                host.post_message(StatusChanged(state="idle"))
                host.notify("Stopped the suggested turn; nothing was applied.")
                return
        host.show_hint(None)
        if speculation is None or speculation.status != "ready":
            if speculation is not None:
                speculation.abort()
            self._run_turn(suggestion)
            return
        if not await self._approved(suggestion, speculation):
            return
        try:
            messages = speculation.accept()
        except OverlayConflict as exc:
            speculation.abort()
            host.notify(f"The suggestion was not applied: {exc}. Send it again to run it on the current files.", severity="error", timeout=10)
            host.prompt.load_text(suggestion)
            return
        await self._commit_speculation(suggestion, messages, speculation)

    async def _approved(self, suggestion: str, speculation: Speculation) -> bool:
        """In a mode that would ask for these changes if the turn ran now, the person sees the diff and answers (y, n, a)."""
        import asyncio

        from app.core.events import Decision
        from app.tui.screens.approval import ApprovalScreen

        calls = speculation.to_approve()
        if not calls or speculation.overlay.conflicts():
            return True  # nothing to ask, or nothing that could apply: accept() says which files changed
        summary = "apply the prepared turn: " + "; ".join(calls[:3]) + (f" and {len(calls) - 3} more" if len(calls) > 3 else "")
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(tool_name="suggested turn", summary=summary, detail=speculation.diff(), tool_kind="edit")
        self.host.post_message(StatusChanged(state="waiting for approval"))
        self.host.push_screen(screen, lambda decision: answer.done() or answer.set_result(decision or Decision.REJECT))
        decision = await answer
        self.host.post_message(StatusChanged(state="idle"))
        if decision is Decision.REJECT:
            speculation.abort()
            self.host.prompt.load_text(suggestion)
            self.host.notify("The suggested turn was not applied; its words are back in the prompt.")
            return False
        if decision is Decision.ALWAYS:
            speculation.approve_for_session()
        return True

    async def _commit_speculation(self, suggestion: str, messages: list, speculation: Speculation) -> None:  # type: ignore[type-arg]
        """The prepared turn joins the conversation and the record as if it had been sent."""
        runtime = self.host.runtime
        assert runtime is not None and runtime.agent is not None
        agent = runtime.agent
        agent.adopt_turn(messages, speculation.usage)
        await self.host.conversation.add(Entry(kind="user", text=suggestion))
        view = self._new_view()
        for event in speculation.events:
            if event.kind in ("approval_needed", "turn_started"):
                continue
            await view.handle(event)
        self.host.notify("Applied the suggested turn.")
        self.after_answer()  # like any finished turn: look for the next step
