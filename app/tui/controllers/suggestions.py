"""Follow-up suggestions in the TUI: shown greyed in the prompt, prepared speculatively while you read,
accepted with Tab or Enter, dismissed by typing. A mixin of the App."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from textual import work
from textual.content import Content

from app.tui.widgets.prompt import PromptInput
from app.tui.widgets.transcript import Entry
from app.core.tools.text import plural

if TYPE_CHECKING:
    from app.core.speculation import Speculation
    from app.runtime import Runtime


class SuggestionActions:
    runtime: Runtime | None
    _suggestion: str = ""
    _speculation: Speculation | None = None
    _finishing: Speculation | None = None  # accepted while still running: Esc stops it

    def stop_finishing_speculation(self) -> bool:
        """Esc while an accepted suggestion finishes: stop it (nothing is applied)."""
        speculation, self._finishing = self._finishing, None
        if speculation is None:
            return False
        speculation.abort()
        return True

    # -- after an answer -----------------------------------------------------------------------

    def after_answer(self) -> None:
        """Called when a turn finished: look for a next step, off the request path."""
        runtime = self.runtime
        if runtime is None or runtime.agent is None or not runtime.settings.suggestions.enabled:
            return
        self._make_suggestion()

    @work(exclusive=True, group="suggestion", exit_on_error=False)
    async def _make_suggestion(self) -> None:
        from app.core.speculation import Speculation, suggest_next

        runtime = self.runtime
        assert runtime is not None and runtime.agent is not None
        try:
            suggestion = await suggest_next(runtime.agent.provider, list(runtime.agent.history))
        except Exception:  # no suggestion is a fine outcome; a failing side query must not bother anyone
            return
        prompt: PromptInput = self.prompt  # type: ignore[attr-defined]
        if not suggestion or prompt.text or runtime.agent.busy:
            return
        self._suggestion = suggestion
        prompt.show_suggestion(suggestion)
        if runtime.settings.suggestions.speculate:
            self._speculation = Speculation.start(runtime.agent, suggestion)
            self._show_speculation_state()
            self._watch_speculation(self._speculation)

    @work(group="speculation", exit_on_error=False)
    async def _watch_speculation(self, speculation: Speculation) -> None:
        await speculation.wait()
        if speculation is self._speculation:
            self._show_speculation_state()

    def _show_speculation_state(self) -> None:
        hint = self.query_one("#command-hint")  # type: ignore[attr-defined]
        speculation = self._speculation
        if not self._suggestion or speculation is None:
            hint.display = False
            return
        if speculation.running:
            text = f"[$accent]⟳[/] preparing the suggestion in a sandbox copy: {escape(self._suggestion)}"
        elif speculation.status == "ready":
            text = f"[$success]✓[/] ready: {escape(self._change_summary(speculation))} · Tab or Enter accepts · typing dismisses"
        else:
            text = f"[$warning]![/] could not prepare it ({escape(speculation.error[:80])}); Tab or Enter sends it as a normal request"
        hint.update(Content.from_markup(text))
        hint.display = True

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
        if self._speculation is not None:
            self._speculation.abort()
            self._speculation = None

    def dismiss_suggestion(self) -> None:
        self.drop_speculation()
        if self._suggestion:
            self._suggestion = ""
            self.prompt.show_suggestion("")  # type: ignore[attr-defined]
            self.query_one("#command-hint").display = False  # type: ignore[attr-defined]

    def on_prompt_input_typed(self, message: PromptInput.Typed) -> None:
        self.dismiss_suggestion()

    def on_prompt_input_accept_suggestion(self, message: PromptInput.AcceptSuggestion) -> None:
        self._accept_suggestion()

    @work(group="turn", exit_on_error=False)
    async def _accept_suggestion(self) -> None:
        from app.core.overlay import OverlayConflict

        suggestion, speculation = self._suggestion, self._speculation
        self._suggestion, self._speculation = "", None
        self.prompt.show_suggestion("")  # type: ignore[attr-defined]
        if not suggestion:
            return
        if speculation is not None and speculation.running:
            self.status.state = "finishing the suggested turn… (Esc stops it)"  # type: ignore[attr-defined]
            self._finishing = speculation
            try:
                await speculation.wait()
            finally:
                self._finishing = None
            if speculation.status == "cancelled":
                self.prompt.load_text(suggestion)  # type: ignore[attr-defined]
                self.status.state = "idle"  # type: ignore[attr-defined]
                self.notify("Stopped the suggested turn; nothing was applied.")  # type: ignore[attr-defined]
                return
        self.query_one("#command-hint").display = False  # type: ignore[attr-defined]
        if speculation is None or speculation.status != "ready":
            if speculation is not None:
                speculation.abort()
            self._run_turn(suggestion)  # type: ignore[attr-defined]
            return
        if not await self._approved(suggestion, speculation):
            return
        try:
            messages = speculation.accept()
        except OverlayConflict as exc:
            speculation.abort()
            self.notify(f"The suggestion was not applied: {exc}. Send it again to run it on the current files.", severity="error", timeout=10)  # type: ignore[attr-defined]
            self.prompt.load_text(suggestion)  # type: ignore[attr-defined]
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
        self.status.state = "waiting for approval"  # type: ignore[attr-defined]
        self.push_screen(screen, lambda decision: answer.done() or answer.set_result(decision or Decision.REJECT))  # type: ignore[attr-defined]
        decision = await answer
        self.status.state = "idle"  # type: ignore[attr-defined]
        if decision is Decision.REJECT:
            speculation.abort()
            self.prompt.load_text(suggestion)  # type: ignore[attr-defined]
            self.notify("The suggested turn was not applied; its words are back in the prompt.")  # type: ignore[attr-defined]
            return False
        if decision is Decision.ALWAYS:
            speculation.approve_for_session()
        return True

    async def _commit_speculation(self, suggestion: str, messages: list, speculation: Speculation) -> None:  # type: ignore[type-arg]
        """The prepared turn joins the conversation and the record as if it had been sent."""
        from app.tui.turn_view import TurnView

        runtime = self.runtime
        assert runtime is not None and runtime.agent is not None
        agent = runtime.agent
        agent.adopt_turn(messages, speculation.usage)
        conversation = self.conversation  # type: ignore[attr-defined]
        await conversation.add(Entry(kind="user", text=suggestion))
        view = TurnView(self, conversation)  # type: ignore[arg-type]
        for event in speculation.events:
            if event.kind in ("approval_needed", "turn_started"):
                continue
            await view.handle(event)
        self.notify("Applied the suggested turn.")  # type: ignore[attr-defined]
        self.after_answer()  # like any finished turn: look for the next step
