"""The agent's side of compaction: when, in the turn, the compactor runs and how its result is committed.

A collaborator of Agent (``Agent.compaction``). The compactor (``app/context/compaction``,
seen here through ``app.core.protocols.Compactor``) decides and summarizes; this part
replaces the history, appends the record (the session keeps every original message) and
emits the events the UI shows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from app.core.history import Message
from app.core.events import (
    CompactionFinished,
    CompactionPending,
    CompactionStarted,
    ContextWarning,
    MicroCompacted,
    Notice,
)
from app.core.request import AssembledRequest, ContextError

if TYPE_CHECKING:
    from app.core.protocols import Assembler, CompactionOutcome, Compactor, HookRunner, MicroOutcome, TurnObserver
    from app.core.tools.registry import ToolRegistry

Emit = Callable[[object], None]
MAX_OVERFLOW_COMPACTIONS = 3
IMAGE_OVERFLOW = "image_overflow"
NEW_SESSION_ADVICE = "Start a new session (/new), or /compress with a focus on what matters now."
OVERFLOW_ADVICE = "The conversation does not fit the model's context window even after compacting it {n} times. " + NEW_SESSION_ADVICE
# A compaction that made nothing smaller: sending the same request again would only be refused again.
OVERFLOW_STUCK = "{error} Compacting did not help: {compaction} " + NEW_SESSION_ADVICE


class CompactionHost(Protocol):
    """What compaction needs from the agent it works for."""

    history: list[Message]
    assembler: Assembler
    tools: ToolRegistry
    interactive: bool
    hooks: HookRunner | None
    observers: Sequence[TurnObserver]
    last_response_at: float | None

    def _record(self, message: Message) -> None: ...

    def _record_system(self, subtype: str, payload: dict) -> None: ...


class AgentCompaction:
    """Runs the compactor at its moments in a turn and commits what it did to the host agent."""

    def __init__(self, host: CompactionHost, compactor: Compactor | None) -> None:
        self.host = host
        self.compactor = compactor
        self.skip_auto = False  # the person skipped the countdown: not again this turn
        self._pause_noticed = False

    # -- before every request -------------------------------------------------------------------

    async def prepare_request(self, emit: Emit) -> AssembledRequest:
        """Micro-compaction, the thresholds, and auto/hard compaction; returns the request to send."""
        tools = self.host.tools.schemas()
        self._add_reminders()
        compactor = self.compactor
        if compactor is None:
            request = self.host.assembler.assemble(self.host.history, tools)
            self._assembler_notices(emit)
            return request
        self.micro(emit, force=False)
        assembled = self.host.assembler.assemble(self.host.history, tools)
        self._assembler_notices(emit)
        tokens = compactor.gate_tokens(assembled.total_tokens)
        self._refuse_if_fixed_part_too_big(assembled, emit)
        band = compactor.band(tokens)
        if band != "ok" and not compactor.warned:
            compactor.warned = True
            t = compactor.thresholds
            emit(ContextWarning(tokens=tokens, warn=t.warn, auto=t.auto, hard=t.hard, window=compactor.context_window))
        if compactor.wants_memory_flush(tokens):
            compactor.flushed = True
            for observer in self.host.observers:
                observer.on_context_filling(self.host.history)
        if band in ("ok", "warn") and compactor.image_overflow(self.host.history):
            trigger = IMAGE_OVERFLOW
        elif await self._should_compact(band, tokens, emit):
            trigger = band
        else:
            return assembled
        result = await self.compact(emit, trigger=trigger, forced=band == "hard", tools=tools)
        request = self.host.assembler.assemble(self.host.history, tools) if result.ok else assembled
        self._refuse_if_over_window(request, emit)
        return request

    # -- what is never sent -------------------------------------------------------------------------

    def _refuse_if_fixed_part_too_big(self, request: AssembledRequest, emit: Emit) -> None:
        """No compaction can make the system prompt, tools and skills smaller: say what they weigh and stop."""
        compactor = self.compactor
        fixed = getattr(self.host.assembler, "fixed_tokens", None)
        if compactor is None or not callable(fixed):
            return
        if compactor.gate_tokens(fixed(request)) >= compactor.context_window:
            self._refuse(request, emit, fixed_part=True)

    def _refuse_if_over_window(self, request: AssembledRequest, emit: Emit) -> None:
        """A request known to be over the window would only be refused: stop the turn with the numbers instead."""
        compactor = self.compactor
        if compactor is not None and compactor.gate_tokens(request.total_tokens) >= compactor.context_window:
            self._refuse(request, emit, fixed_part=False)

    def _refuse(self, request: AssembledRequest, emit: Emit, *, fixed_part: bool) -> None:
        compactor = self.compactor
        assert compactor is not None
        tokens = compactor.gate_tokens(request.total_tokens)
        explain = getattr(self.host.assembler, "does_not_fit", None)
        if callable(explain):
            text = explain(request, tokens=tokens, fixed_part=fixed_part)
        else:
            text = f"The request ({tokens:,} tokens) does not fit the model's context window of {compactor.context_window:,} tokens."
        self.host._record_system("context_overflow", {"tokens": tokens, "window": compactor.context_window, "fixedPart": fixed_part, "message": text})
        raise ContextError(text)

    def _assembler_notices(self, emit: Emit) -> None:
        """What the assembler must tell the person during the turn (a context engine quarantined)."""
        take = getattr(self.host.assembler, "take_notices", None)
        for text in take() if callable(take) else []:
            emit(Notice(level="warning", text=text))

    def _add_reminders(self) -> None:
        """Reminders join the conversation (and the record) so later requests keep a stable prefix."""
        hooks = self.host.hooks
        extra = hooks.take_reminders() if hooks is not None else []
        for text in [*self.host.assembler.reminders(), *extra]:
            message = Message.user(text)
            self.host.history.append(message)
            self.host._record(message)

    async def _should_compact(self, band: str, tokens: int, emit: Emit) -> bool:
        compactor = self.compactor
        assert compactor is not None
        if band == "hard":
            return True
        if band != "auto" or not compactor.settings.auto or self.skip_auto:
            return False
        if compactor.paused:
            if not self._pause_noticed:
                self._pause_noticed = True
                emit(Notice(level="warning", text="Auto-compaction is paused after 3 failures in a row; /compress forces it."))
            return False
        delay = compactor.settings.auto_delay_seconds
        if not self.host.interactive or delay <= 0:
            return True
        return await self._countdown(tokens, compactor.thresholds.auto, delay, emit)

    async def _countdown(self, tokens: int, threshold: float, delay: float, emit: Emit) -> bool:
        """Say auto-compaction is coming; the person may skip it (for this turn) before it starts."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        emit(CompactionPending(tokens=tokens, threshold=threshold, delay=delay, future=future))
        try:
            go = await asyncio.wait_for(asyncio.shield(future), delay)
        except asyncio.TimeoutError:
            go = True
        finally:
            if not future.done():
                future.cancel()
        if not go:
            self.skip_auto = True
            emit(Notice(level="info", text="Auto-compaction skipped for this turn; the hard limit still forces it."))
        return go

    # -- doing it ---------------------------------------------------------------------------------

    def _measure(self, tools: list[dict] | None) -> Callable[[list[Message]], int] | None:
        """A history's size as the gate sees the request it makes: fixed parts included, server-calibrated."""
        compactor = self.compactor
        count = getattr(self.host.assembler, "request_tokens", None)
        if compactor is None or not callable(count):
            return None
        schemas = tools if tools is not None else self.host.tools.schemas()
        return lambda messages: compactor.gate_tokens(count(messages, schemas))

    async def compact(self, emit: Emit, *, trigger: str, focus: str = "", forced: bool = False, tools: list[dict] | None = None) -> CompactionOutcome:
        compactor = self.compactor
        assert compactor is not None
        measure = self._measure(tools)
        emit(CompactionStarted(trigger=trigger, tokens=(measure or compactor.count)(self.host.history)))
        result = await compactor.compact(self.host.history, trigger=trigger, focus=focus, forced=forced, measure=measure)
        if result.ok and result.messages is not None:
            replaced = getattr(self.host.assembler, "history_replaced", None)
            if callable(replaced):
                replaced(self.host.history, result.messages)
            self.host.history = list(result.messages)
            self.host._record_system("chat_compression", result.record_payload())
            self._pause_noticed = False
        elif result.status.failed or trigger != "auto":
            # Every compaction that did not happen is on the record with its numbers (a no-op asked for too).
            payload = {"trigger": trigger, "status": int(result.status), "message": result.message, "tokens": result.tokens_before, "limit": result.limit}
            self.host._record_system("compaction_failed", payload)
        emit(
            CompactionFinished(
                trigger=trigger,
                ok=result.ok,
                status=result.status.name,
                tokens_before=result.tokens_before,
                tokens_after=result.tokens_after,
                message=result.message,
            )
        )
        return result

    def micro(self, emit: Emit | None, *, force: bool) -> MicroOutcome | None:
        compactor = self.compactor
        if compactor is None:
            return None
        result = compactor.micro(self.host.history, force=force, last_response_at=self.host.last_response_at)
        if result.changed:
            self.host.history = result.messages
            self.host._record_system("micro_compaction", result.record_payload())
            if emit is not None:
                emit(MicroCompacted(trigger=result.trigger or "", cleared=len(result.cleared_ids), tokens_saved=result.tokens_saved))
        return result
