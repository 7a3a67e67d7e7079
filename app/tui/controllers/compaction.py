"""What the app does about a filling window: the warn notice, the skippable auto-compaction
countdown, /compress and /compress-fast. The gauge and the status line hear of it by message."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from app.core.events import CompactionFinished, CompactionPending, CompactionStarted, ContextWarning, Event, MicroCompacted
from app.core.tools.text import plural
from app.tui.messages import StatusChanged, UsageChanged
from app.tui.widgets.status import format_tokens
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    import asyncio

    from app.runtime import Runtime
    from app.tui.host import TuiHost
    from app.tui.turn_view import TurnView
    from app.tui.widgets.conversation import Conversation


class CompactionController:
    def __init__(self, host: TuiHost, *, new_view: Callable[[], TurnView], refresh_map: Callable[[Runtime], object]) -> None:
        self.host = host
        self._new_view = new_view  # /compress shows its events as a turn does
        self._refresh_map = refresh_map  # after a compaction the map shows what is left
        self.pending: asyncio.Future[bool] | None = None  # the countdown's answer: compact (True) or skip

    def _count_down(self, future: asyncio.Future[bool] | None, deadline: float) -> None:
        """The status line counts the seconds left (the notice above says the delay once)."""

        def tick() -> None:
            if future is None or future.done() or self.pending is not future:
                timer.stop()
                return
            left = max(0, math.ceil(deadline - time.monotonic()))
            self.host.post_message(StatusChanged(state=f"auto-compaction in {left} s (Esc skips)"))

        timer = self.host.set_interval(0.25, tick)
        tick()

    def waiting(self) -> bool:
        """The countdown before an automatic compaction is running (Esc skips it)."""
        return self.pending is not None and not self.pending.done()

    def skip_pending(self) -> bool:
        """Esc during the countdown skips auto-compaction (and does not cancel the turn)."""
        future = self.pending
        if future is None or future.done():
            return False
        future.set_result(False)
        self.pending = None
        return True

    async def on_compaction_event(self, event: Event, conversation: Conversation) -> None:
        host = self.host
        if isinstance(event, ContextWarning):
            left = max(0, int(event.auto - event.tokens))
            text = (
                f"Context is {100 * event.tokens / max(1, event.window):.0f}% full: {format_tokens(left)} tokens left "
                "before auto-compaction. F3 compacts now (/compress [focus])."
            )
            await conversation.add(Entry(kind="notice", text=text))
            host.notify(text, severity="warning", timeout=8)
        elif isinstance(event, CompactionPending):
            self.pending = event.future
            text = f"Auto-compaction starts in {event.delay:g} s ({format_tokens(event.tokens)} tokens) — press Esc to skip it."
            await conversation.add(Entry(kind="notice", text=text))
            host.notify(text, severity="warning", timeout=event.delay)
            self._count_down(event.future, time.monotonic() + event.delay)
        elif isinstance(event, CompactionStarted):
            self.pending = None
            host.post_message(StatusChanged(state="compressing conversation history…"))
            why = "too many images from tool calls" if event.trigger == "image_overflow" else event.trigger
            await conversation.add(Entry(kind="notice", text=f"Compressing conversation history… ({why}, {format_tokens(event.tokens)} tokens)"))
        elif isinstance(event, CompactionFinished):
            await conversation.add(Entry(kind="compaction" if event.ok else "error", text=event.message))
            host.notify(event.message, severity="information" if event.ok else "error", timeout=8)
            if event.ok:
                host.post_message(UsageChanged(event.tokens_after, source="estimate"))
                if host.runtime is not None:
                    self._refresh_map(host.runtime)
            host.post_message(StatusChanged(state="waiting for the model…" if host.busy() else "idle"))
        elif isinstance(event, MicroCompacted):
            text = f"Cleared {plural(event.cleared, 'old tool result')} ({event.trigger}), about {format_tokens(event.tokens_saved)} tokens freed."
            await conversation.add(Entry(kind="notice", text=text))

    # -- commands ---------------------------------------------------------------------------------

    def compact_now(self, focus: str = "") -> None:
        runtime = self.host.runtime
        if runtime is None or runtime.agent is None:
            self.host.notify("Compaction needs a model endpoint.", severity="error")
            return
        if runtime.agent.busy:
            self.host.notify("Already busy; wait for the turn to finish or press Esc first.", severity="warning")
            return
        self.host.run_worker(partial(self._run_compaction, focus), name="_run_compaction", group="turn", exit_on_error=False)

    async def _run_compaction(self, focus: str) -> None:
        runtime = self.host.runtime
        assert runtime is not None and runtime.agent is not None
        view = self._new_view()
        async for event in runtime.agent.compact(focus):
            await view.handle(event)
        self.host.post_message(StatusChanged(state="idle"))

    async def compress_fast(self) -> None:
        host = self.host
        runtime = host.runtime
        if runtime is None or runtime.agent is None:
            host.notify("There is no conversation to compact yet.", severity="warning")
            return
        if runtime.agent.busy:
            host.notify("Already busy; wait for the turn to finish or press Esc first.", severity="warning")
            return
        result = runtime.agent.compact_fast()
        if result is None or not result.changed:
            host.notify("No compression needed.")
            return
        # What the next request will weigh, as the gauge counts it (assembled, not guessed).
        after = runtime.assembler.assemble(runtime.agent.history, runtime.agent.tools.schemas()).total_tokens
        before = after + result.tokens_saved
        text = (
            f"Cleared {plural(len(result.cleared_ids), 'old tool result')} (no model call): "
            f"{before:,} -> {after:,} tokens, about {format_tokens(result.tokens_saved)} freed."
        )
        host.post_message(UsageChanged(after, source="estimate"))
        await host.conversation.add(Entry(kind="notice", text=text))
        host.notify(text)
