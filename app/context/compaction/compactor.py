"""The compactor: when to compact, and doing it (summary, micro-compaction), with a circuit breaker.

It never touches the session record or the agent's history itself: it returns a
new history and the facts of what happened, and the agent commits both.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from app.config import CompactionSettings
from app.context.compaction.compose import compose_history, live_tail_start, shrink_tail
from app.context.compaction.micro import MicroResult, MicroSettings, micro_compact
from app.context.compaction.outcome import STATUS_TEXT, CompressionStatus
from app.context.compaction.pairing import repair_tool_pairs
from app.context.compaction.slimming import cap_oversized, tool_image_count, without_images
from app.context.compaction.thresholds import Thresholds, compute_thresholds
from app.context.view_edits import ViewEdits
from app.core.request import message_tokens
from app.core.history import Message
from app.core.llm.provider import Provider
from app.core.tokens import Calibration, TokenCounter

# The summarizer, its quality checks, the attachments and the shrinker load with the first
# compaction: the gate and micro-compaction above run on every request, a summary rarely.
if TYPE_CHECKING:
    from app.context.compaction.summary import SummaryOutcome

MAX_CONSECUTIVE_FAILURES = 3
MEMORY_FLUSH_SOFT_TOKENS = 4_000
# A kept tail larger than this share of the window is cut down to the live request and the last tool round.
MAX_TAIL_SHARE = 0.5
# The summarizer's system prompt and final instruction, beyond what is counted of them.
SUMMARY_MARGIN = 1_000
MIN_SUMMARY_TOKENS = 1_024



@dataclass
class CompactionResult:
    """How one compaction went: its status and token counts, and the new history when it compressed."""

    trigger: str  # manual | auto | hard | overflow
    status: CompressionStatus
    tokens_before: int
    tokens_after: int
    messages: list[Message] | None = None  # the new history when compressed
    summary: str = ""
    first_kept_index: int | None = None
    detail: str = ""
    # The limit the size is judged against (the hard threshold) and the window, for the numbers in the message.
    limit: int = 0
    window: int = 0

    @property
    def ok(self) -> bool:
        return self.status is CompressionStatus.COMPRESSED

    @property
    def message(self) -> str:
        """One sentence for the person, with the numbers."""
        if self.ok:
            how = f"; {self.detail}" if self.detail else ""
            return f"Context compressed ({self.tokens_before:,} -> {self.tokens_after:,} tokens, {self.trigger}{how})."
        numbers = f"{self.tokens_before:,} tokens" + (f"; the hard limit is {self.limit:,} of a {self.window:,}-token window" if self.limit else "")
        if self.status is CompressionStatus.NOOP and self.trigger in ("auto", "warn", "manual"):
            return f"No compression needed: {self.detail or STATUS_TEXT[self.status]} ({numbers})."
        if self.status is CompressionStatus.NOOP:  # the hard limit or the server said it is too big: not "needed"
            return f"Could not compress chat history: {self.detail or STATUS_TEXT[self.status]} ({numbers})."
        reason = STATUS_TEXT.get(self.status, self.status.name)
        extra = f" ({self.detail})" if self.detail else ""
        return f"Failed to compress chat history: {reason}{extra}. The conversation is unchanged at {numbers}."

    def record_payload(self) -> dict:
        return {
            "info": {
                "originalTokenCount": self.tokens_before,
                "newTokenCount": self.tokens_after,
                "newTokenCountIsEstimated": True,
                "compressionStatus": int(self.status),
                "triggerReason": self.trigger,
            },
            "compressedHistory": [m.to_dict() for m in self.messages or []],
            "firstKeptIndex": self.first_kept_index,
            "summary": self.summary,
        }


@dataclass
class Compactor:
    """Decides when the history must be compacted and does it, pausing auto-compaction after repeated failures."""

    provider: Provider
    settings: CompactionSettings
    counter: TokenCounter
    root: Path
    context_window: int
    calibration: Calibration = field(default_factory=Calibration)
    skill_bodies: Callable[[], list[str]] = lambda: []
    failures: int = 0
    warned: bool = False
    flushed: bool = False
    # The server's prompt tokens for the last request and our count of that same request.
    reported_prompt: int | None = None
    tracked_at_report: int = 0
    # A context engine that owns compaction gets every compaction request instead of the summarizer.
    engine: Any = None
    session_id: str = ""
    # The user's PreCompact / PostCompact hooks (set by the runtime when configured).
    pre_compact: Callable[[str], Awaitable[str]] | None = None
    post_compact: Callable[[str, str], Awaitable[None]] | None = None
    # The person's hand edits (the assembler's): the summarizer reads the edited view, pinned parts outlive it.
    view_edits: ViewEdits = field(default_factory=ViewEdits)

    @property
    def thresholds(self) -> Thresholds:
        return compute_thresholds(self.context_window, self.settings.pct, origin=self.settings.pct_source)

    @property
    def paused(self) -> bool:
        """The breaker: after repeated failures only a forced compaction is tried."""
        return self.failures >= MAX_CONSECUTIVE_FAILURES

    # -- the gate ---------------------------------------------------------------------------------

    def observe(self, tracked: int, reported: int | None) -> None:
        if reported:
            self.reported_prompt, self.tracked_at_report = reported, tracked

    def gate_tokens(self, tracked: int) -> int:
        """The server's last prompt tokens plus our count of what was added since (first turn: all of it)."""
        if self.reported_prompt:
            return max(0, self.reported_prompt + tracked - self.tracked_at_report)
        return self.calibration.apply(tracked)

    def band(self, tokens: int) -> str:
        return self.thresholds.band(tokens)

    def wants_memory_flush(self, tokens: int) -> bool:
        return self.settings.memory_flush and not self.flushed and tokens >= self.thresholds.auto - MEMORY_FLUSH_SOFT_TOKENS

    # -- micro-compaction ---------------------------------------------------------------------------

    def micro(self, history: list[Message], *, force: bool = False, last_response_at: float | None = None) -> MicroResult:
        settings = MicroSettings(
            keep_recent=self.settings.keep_recent_tool_results,
            idle_minutes=self.settings.idle_minutes,
            size_chars=self.settings.size_chars,
        )
        return micro_compact(history, settings, force=force, now=time.time(), last_response_at=last_response_at, keep=self.view_edits.is_pinned)

    # -- summary compaction ---------------------------------------------------------------------

    def image_overflow(self, history: list[Message]) -> bool:
        """Whether tool results hold enough images to compact below the token threshold (spec: image trigger).

        Only images a summary can replace count: those of the turn in flight stay in its tail,
        and counting them would compact again on every request of a screenshot-heavy turn.
        """
        threshold = self.settings.image_threshold
        return threshold > 0 and not self.paused and tool_image_count(history[: live_tail_start(history)]) >= threshold

    def count(self, messages: list[Message]) -> int:
        return sum(message_tokens(self.counter.count, m) for m in messages)

    async def compact(
        self,
        history: list[Message],
        *,
        trigger: str,
        focus: str = "",
        forced: bool = False,
        measure: Callable[[list[Message]], int] | None = None,
    ) -> CompactionResult:
        """Summarize what can be summarized, cut what cannot, and say which and why.

        ``measure`` gives a history's size the way the gate measures the request it would
        make (the server's last usage plus what changed, else our calibrated count); every
        "did it shrink, does it fit" below is judged with it.
        """
        measure = measure or self.count
        before = measure(history)
        if self.engine is not None:
            return await self._engine_compact(trigger, focus, forced, before)
        if self.paused and not forced:
            return self._result(trigger, CompressionStatus.NOOP, before, detail=f"paused after {MAX_CONSECUTIVE_FAILURES} failures in a row; /compress forces it")
        target = int(self.thresholds.auto)
        start = live_tail_start(history)
        limit = self.context_window * MAX_TAIL_SHARE
        second = shrink_tail(history, start, lambda tail: self.count(tail) <= limit) if start < len(history) else start
        summarized = history[:second] if second > start else history[:start]
        tail = ([history[start]] + history[second:]) if second > start else history[start:]
        if len(summarized) < 2:
            # Nothing before the live request to summarize (a first turn): cut its largest parts instead.
            return self._shrunk(trigger, history, measure, before, target, "the conversation is too short to summarize")
        hook_text = await self.pre_compact(trigger) if self.pre_compact is not None else ""
        # What the model was shown is what is summarized: a dropped part stays dropped, an edited summary is read as edited.
        edited = self.view_edits.edit_view(history)[0]
        outcome = await self._summarize(edited, focus, history, forced=forced or trigger != "auto", hook_text=hook_text)
        if outcome.status.failed:
            failed = self._failed(trigger, outcome.status, before, outcome.error)
            if forced and before >= self.thresholds.hard:
                # Above the hard limit a failed summary must not leave the request as it was.
                shrunk = self._shrunk(trigger, history, measure, before, target, failed.message)
                return shrunk if shrunk.ok else failed
            return failed
        from app.context.compaction.attachments import collect_attachments
        from app.context.compaction.shrink import shrink_largest

        # A file whose read the person dropped is not re-embedded; a pinned one comes back verbatim below instead.
        skip = self.view_edits.edited_calls(history)
        attachments = collect_attachments(history, self.root, skill_bodies=self.skill_bodies(), image_source=summarized, skip_calls=skip)
        text = "" if attachments.empty else attachments.text()
        pinned = self.view_edits.pinned_to_keep(summarized)
        messages = repair_tool_pairs(compose_history(outcome.summary, tail, text, attachments.images, pinned)).messages
        after = measure(messages)
        detail = ""
        if after > target:
            # The kept tail itself is large (a huge tool result in the round in flight): cut it too.
            cut = shrink_largest(messages, measure, target)
            if cut.changed:
                messages, after, detail = cut.messages, cut.tokens, cut.describe()
        if after <= 0:
            return self._failed(trigger, CompressionStatus.COMPRESSION_FAILED_TOKEN_COUNT_ERROR, before, "")
        if after >= before:
            return self._failed(trigger, CompressionStatus.COMPRESSION_FAILED_INFLATED_TOKEN_COUNT, before, f"{before:,} -> {after:,} tokens")
        self._succeeded()
        if self.post_compact is not None:
            await self.post_compact(trigger, outcome.summary)
        return CompactionResult(
            trigger, CompressionStatus.COMPRESSED, before, after, messages=messages, summary=outcome.summary,
            first_kept_index=start if tail else None, detail=detail, limit=int(self.thresholds.hard), window=self.context_window,
        )

    def _shrunk(self, trigger: str, history: list[Message], measure: Callable[[list[Message]], int], before: int, target: int, why: str) -> CompactionResult:
        from app.context.compaction.shrink import shrink_largest

        """The history with its largest parts cut, when that makes it smaller; else a failure that says why."""
        cut = shrink_largest(history, measure, target)
        if not cut.changed or cut.tokens >= before:
            status = CompressionStatus.NOOP if before < self.thresholds.hard else CompressionStatus.COMPRESSION_FAILED_INFLATED_TOKEN_COUNT
            detail = f"{why}, and it has no large tool result or pasted block to cut"
            if status is CompressionStatus.NOOP:
                return self._result(trigger, status, before, detail=detail)
            return self._failed(trigger, status, before, detail)
        self._succeeded()
        return CompactionResult(
            trigger, CompressionStatus.COMPRESSED, before, cut.tokens, messages=cut.messages,
            detail=f"{why}; {cut.describe()}", limit=int(self.thresholds.hard), window=self.context_window,
        )

    def _succeeded(self) -> None:
        self.failures = 0
        self.warned = self.flushed = False
        self.reported_prompt = None  # the next request's usage sets a new baseline

    def _result(self, trigger: str, status: CompressionStatus, before: int, *, detail: str = "") -> CompactionResult:
        return CompactionResult(trigger, status, before, before, detail=detail, limit=int(self.thresholds.hard), window=self.context_window)

    def summary_max_tokens(self, input_tokens: int) -> int:
        """The summarizer's output limit: the setting, capped by what its window leaves after the input."""
        room = self.context_window - input_tokens - SUMMARY_MARGIN
        return max(MIN_SUMMARY_TOKENS, min(self.settings.max_output_tokens, room))

    async def _summarize(self, summarized: list[Message], focus: str, history: list[Message], *, forced: bool, hook_text: str = "") -> SummaryOutcome:
        """The summarizer reads the whole history, the tool round in flight included (roles system,user,assistant,tool,user)."""
        from app.context.compaction.shrink import shrink_largest
        from app.context.compaction.summary import compression_system_prompt, request_summary, template

        system = compression_system_prompt(focus, hook_text)
        view = cap_oversized(without_images(repair_tool_pairs(summarized).messages), self.context_window)
        # Its own request must fit its window with room for the summary: cut the largest parts if not.
        fixed = self.counter.count(system) + SUMMARY_MARGIN
        budget = self.context_window - fixed - min(self.settings.max_output_tokens, self.context_window // 4)
        view = shrink_largest(view, lambda m: self.calibration.apply(self.count(m)), max(budget, 0)).messages
        max_tokens = self.summary_max_tokens(self.calibration.apply(self.count(view)) + fixed)
        kwargs = {"system": system, "max_output_tokens": max_tokens, "timeout": self.settings.timeout_seconds}
        outcome = await request_summary(self.provider, view, **kwargs)
        if outcome.status.failed or not self.settings.quality_check:
            return outcome
        lost = self._lost(outcome.summary, history)
        if not lost:
            return outcome
        correction = Template(template("correction")).substitute(missing="\n".join(f"- {item}" for item in lost))
        retry = await request_summary(self.provider, view, extra_user=correction, **kwargs)
        if retry.status.failed:
            return retry
        still = self._lost(retry.summary, history)
        if still and not forced:
            retry.status = CompressionStatus.COMPRESSION_FAILED_QUALITY
            retry.error = "missing: " + ", ".join(still[:5])
        # Forced (hard limit, overflow, /compress): a summary missing a detail beats a request that cannot be sent.
        return retry

    async def _engine_compact(self, trigger: str, focus: str, forced: bool, before: int) -> CompactionResult:
        """The engine compacts its own store; the history here stays (its view comes from the engine)."""
        try:
            result = await self.engine.compact(self.session_id, force=forced, reason=trigger, custom_instructions=focus)
        except Exception as exc:
            return self._failed(trigger, CompressionStatus.COMPRESSION_FAILED_MODEL_ERROR, before, f"the context engine failed: {exc}")
        if not result.ok:
            return self._failed(trigger, CompressionStatus.COMPRESSION_FAILED_MODEL_ERROR, before, result.reason)
        status = CompressionStatus.COMPRESSED if result.compacted else CompressionStatus.NOOP
        self.failures = 0
        return CompactionResult(trigger, status, result.tokens_before or before, result.tokens_after or before, detail=result.reason)

    def _lost(self, summary: str, history: list[Message]) -> list[str]:
        from app.context.compaction.quality import missing_identifiers, missing_sections, recent_identifiers

        return missing_sections(summary) + missing_identifiers(summary, recent_identifiers(history))

    def _failed(self, trigger: str, status: CompressionStatus, before: int, detail: str) -> CompactionResult:
        self.failures += 1
        return self._result(trigger, status, before, detail=detail)
