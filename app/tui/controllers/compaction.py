"""What the app does about a filling window: the gauge, the warn notice, the skippable
auto-compaction countdown, /compress and /compress-fast. A mixin of the App."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from textual import work

from app.core.events import CompactionFinished, CompactionPending, CompactionStarted, ContextWarning, Event, MicroCompacted
from app.tui.widgets.gauge import BudgetGauge
from app.tui.widgets.status import format_tokens
from app.tui.widgets.transcript import Entry
from app.core.tools.text import plural

if TYPE_CHECKING:
    import asyncio

    from app.runtime import Runtime
    from app.tui.widgets.conversation import Conversation


class CompactionActions:
    runtime: Runtime | None
    _pending_compaction: asyncio.Future[bool] | None = None

    @property
    def gauge(self) -> BudgetGauge:
        return self.query_one("#gauge", BudgetGauge)  # type: ignore[attr-defined]

    def show_gate_tokens(self, tracked: int) -> None:
        """The gauge before an answer arrives: the server's last count plus what was added since."""
        agent = self.runtime.agent if self.runtime else None
        compactor = agent.compactor if agent else None
        tokens = compactor.gate_tokens(tracked) if compactor else tracked
        source = "reported" if compactor and compactor.reported_prompt else "estimate"
        self.gauge.set_usage(tokens, source=source)

    def _count_down(self, future: asyncio.Future[bool] | None, deadline: float) -> None:
        """The status line counts the seconds left (the notice above says the delay once)."""
        status = self.status  # type: ignore[attr-defined]

        def tick() -> None:
            if future is None or future.done() or self._pending_compaction is not future:
                timer.stop()
                return
            left = max(0, math.ceil(deadline - time.monotonic()))
            status.state = f"auto-compaction in {left} s (Esc skips)"

        timer = self.set_interval(0.25, tick)  # type: ignore[attr-defined]
        tick()

    def skip_pending_compaction(self) -> bool:
        """Esc during the countdown skips auto-compaction (and does not cancel the turn)."""
        future = self._pending_compaction
        if future is None or future.done():
            return False
        future.set_result(False)
        self._pending_compaction = None
        return True

    async def on_compaction_event(self, event: Event, conversation: Conversation) -> None:
        status = self.status  # type: ignore[attr-defined]
        if isinstance(event, ContextWarning):
            left = max(0, int(event.auto - event.tokens))
            text = (
                f"Context is {100 * event.tokens / max(1, event.window):.0f}% full: {format_tokens(left)} tokens left "
                "before auto-compaction. F3 compacts now (/compress [focus])."
            )
            await conversation.add(Entry(kind="notice", text=text))
            self.notify(text, severity="warning", timeout=8)  # type: ignore[attr-defined]
        elif isinstance(event, CompactionPending):
            self._pending_compaction = event.future
            text = f"Auto-compaction starts in {event.delay:g} s ({format_tokens(event.tokens)} tokens) — press Esc to skip it."
            await conversation.add(Entry(kind="notice", text=text))
            self.notify(text, severity="warning", timeout=event.delay)  # type: ignore[attr-defined]
            self._count_down(event.future, time.monotonic() + event.delay)
        elif isinstance(event, CompactionStarted):
            self._pending_compaction = None
            status.state = "compressing conversation history…"
            why = "too many images from tool calls" if event.trigger == "image_overflow" else event.trigger
            await conversation.add(Entry(kind="notice", text=f"Compressing conversation history… ({why}, {format_tokens(event.tokens)} tokens)"))
        elif isinstance(event, CompactionFinished):
            await conversation.add(Entry(kind="compaction" if event.ok else "error", text=event.message))
            self.notify(event.message, severity="information" if event.ok else "error", timeout=8)  # type: ignore[attr-defined]
            if event.ok:
                self.gauge.set_usage(event.tokens_after, source="estimate")
                if self.runtime is not None:
                    self.refresh_map_estimate(self.runtime)  # type: ignore[attr-defined]
            status.state = "waiting for the model…" if self._busy() else "idle"  # type: ignore[attr-defined]
        elif isinstance(event, MicroCompacted):
            text = f"Cleared {plural(event.cleared, 'old tool result')} ({event.trigger}), about {format_tokens(event.tokens_saved)} tokens freed."
            await conversation.add(Entry(kind="notice", text=text))

    # -- commands ---------------------------------------------------------------------------------

    def action_compact_now(self, focus: str = "") -> None:
        runtime = self.runtime
        if runtime is None or runtime.agent is None:
            self.notify("Compaction needs a model endpoint.", severity="error")  # type: ignore[attr-defined]
            return
        if runtime.agent.busy:
            self.notify("Already busy; wait for the turn to finish or press Esc first.", severity="warning")  # type: ignore[attr-defined]
            return
        self._run_compaction(focus)

    @work(group="turn", exit_on_error=False)
    async def _run_compaction(self, focus: str) -> None:
        from app.tui.turn_view import TurnView

        assert self.runtime is not None and self.runtime.agent is not None
        view = TurnView(self, self.conversation)  # type: ignore[arg-type, attr-defined]
        async for event in self.runtime.agent.compact(focus):
            await view.handle(event)
        self.status.state = "idle"  # type: ignore[attr-defined]

    async def action_compress_fast(self) -> None:
        runtime = self.runtime
        if runtime is None or runtime.agent is None:
            self.notify("There is no conversation to compact yet.", severity="warning")  # type: ignore[attr-defined]
            return
        if runtime.agent.busy:
            self.notify("Already busy; wait for the turn to finish or press Esc first.", severity="warning")  # type: ignore[attr-defined]
            return
        result = runtime.agent.compact_fast()
        if result is None or not result.changed:
            self.notify("No compression needed.")  # type: ignore[attr-defined]
            return
        # What the next request will weigh, as the gauge counts it (assembled, not guessed).
        after = runtime.assembler.assemble(runtime.agent.history, runtime.agent.tools.schemas()).total_tokens
        before = after + result.tokens_saved
        text = (
            f"Cleared {plural(len(result.cleared_ids), 'old tool result')} (no model call): "
            f"{before:,} -> {after:,} tokens, about {format_tokens(result.tokens_saved)} freed."
        )
        self.gauge.set_usage(after, source="estimate")  # type: ignore[attr-defined]
        await self.conversation.add(Entry(kind="notice", text=text))  # type: ignore[attr-defined]
        self.notify(text)  # type: ignore[attr-defined]
