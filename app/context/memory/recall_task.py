"""Recall running beside the request instead of in front of it.

Started the moment a prompt arrives and never awaited on the request path: the
caller polls with zero wait. A result that is ready goes at the front of the
request's reminders; one that is not is tried again on the next tool-result
turn (and placed last there, since tool results must come first).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from app.dataclass import dataclass
from typing import TYPE_CHECKING, Any

from app.context.memory.entry import MemoryEntry
from app.context.memory.recall import (
    MAX_RELEVANT_DOCS,
    RecallPlan,
    RecallResult,
    RecallStrategy,
    heuristic_selection,
    model_result,
    plan_from_store,
    recall_for_query,
)
from app.context.memory.selector import RECALL_SELECTOR_TIMEOUT_SECONDS
from app.context.memory.store import MemoryStore
from app.core.llm.provider import Provider

if TYPE_CHECKING:
    from app.context.memory.semantic import SemanticRecall

log = logging.getLogger(__name__)


class RecallTask:
    """An asyncio task computing a RecallResult; must be created inside a running loop."""

    def __init__(self, work: Awaitable[RecallResult]) -> None:
        self._task: asyncio.Future[RecallResult] = asyncio.ensure_future(work)
        self._task.add_done_callback(_consume_exception)
        self._taken = False

    @classmethod
    def start(
        cls,
        store: MemoryStore,
        query: str,
        *,
        provider: Provider | None = None,
        recent_tools: Sequence[str] = (),
        excluded_paths: Iterable[str] = (),
        limit: int = MAX_RELEVANT_DOCS,
        timeout: float = RECALL_SELECTOR_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> RecallTask:
        return cls(
            recall_for_query(
                store,
                query,
                provider=provider,
                recent_tools=recent_tools,
                excluded_paths=excluded_paths,
                limit=limit,
                timeout=timeout,
                clock=clock,
            )
        )

    @property
    def done(self) -> bool:
        return self._task.done()

    def result(self) -> RecallResult | None:
        """The result when the task finished normally; None while running, cancelled or failed."""
        if not self._task.done() or self._task.cancelled() or self._task.exception() is not None:
            return None
        return self._task.result()

    def result_if_ready(self) -> str | None:
        """The reminder text if recall has finished and found something; never waits."""
        result = self.result()
        return result.reminder if result is not None and result.reminder else None

    def take_if_ready(self) -> str | None:
        """Like result_if_ready, but hands the reminder out once only."""
        if self._taken or not self._task.done():
            return None
        self._taken = True
        return self.result_if_ready()

    def cancel(self) -> None:
        self._task.cancel()

    async def wait(self) -> RecallResult | None:
        """Wait for the result (for callers that can: headless runs, tests)."""
        await asyncio.wait([self._task])
        return self.result()


def _consume_exception(task: asyncio.Future[Any]) -> None:
    # Retrieving the exception here stops asyncio's "never retrieved" warning; a
    # failed recall only means no memories this turn.
    if not task.cancelled() and task.exception() is not None:
        log.warning("memory recall failed: %s", task.exception())


# The local (keyword) recall takes ~10 ms on hundreds of memories; the first request of a turn
# waits this long for it at most, so a plain question carries its memories without a visible delay.
LOCAL_RECALL_DEADLINE_SECONDS = 0.15


class TurnRecall:
    """One turn's recall: the local ranking and (when on) the model selector, both started at submit.

    Before the first request the local result is awaited up to LOCAL_RECALL_DEADLINE_SECONDS;
    the selector's pick is used instead when it has settled by then (headless runs wait for it,
    bounded by its own timeout). A selector that settles later is added on the next request of
    the turn, minus what was already shown; one that settles after the turn is carried into the
    next turn (``carry``). ``delivered`` records what went out and by which path.
    """

    def __init__(
        self,
        store: MemoryStore,
        query: str,
        *,
        provider: Provider | None,
        recent_tools: Sequence[str] = (),
        excluded_paths: Iterable[str] = (),
        timeout: float = RECALL_SELECTOR_TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.time,
        carried: Sequence[MemoryEntry] = (),
        local_deadline: float = LOCAL_RECALL_DEADLINE_SECONDS,
        semantic: SemanticRecall | None = None,
        asked_at: int | None = None,
    ) -> None:
        self.clock = clock
        self.local_deadline = local_deadline
        self.timeout = timeout
        self.started = time.monotonic()
        self._carried = list(carried)
        excluded = [str(p) for p in excluded_paths]
        self._plan: asyncio.Future[RecallPlan] = asyncio.ensure_future(
            asyncio.to_thread(
                plan_from_store, store, query, recent_tools=recent_tools, excluded_paths=excluded, semantic=semantic,
                asked_at=time.monotonic_ns() if asked_at is None else asked_at,
            )
        )
        self._plan.add_done_callback(_consume_exception)
        self._selector: asyncio.Future[RecallResult] | None = None
        if provider is not None:
            self._selector = asyncio.ensure_future(self._select(provider, query, recent_tools))
            self._selector.add_done_callback(_consume_exception)
        self._requests = 0
        self._selector_used = False
        self._local_shown = False
        self._fallback_reason: str | None = None
        self.delivered: list[Delivery] = []

    async def _select(self, provider: Provider, query: str, recent_tools: Sequence[str]) -> RecallResult:
        plan = await asyncio.shield(self._plan)
        if not plan.candidates:
            return RecallResult(RecallStrategy.NONE)
        return await model_result(provider, query, plan, recent_tools=recent_tools, timeout=self.timeout, now=self.clock())

    async def settle(self, request_number: int, *, wait_for_selector: bool) -> None:
        """Wait, before the first request only, for what it may carry (never raises)."""
        if request_number != 1:
            return
        waits: list[asyncio.Future[Any]] = [self._plan]
        await asyncio.wait(waits, timeout=max(0.0, self.local_deadline - (time.monotonic() - self.started)))
        if wait_for_selector and self._selector is not None:
            # Headless: the selector may hold the first request up, but never past its own deadline.
            remaining = self.timeout - (time.monotonic() - self.started)
            await asyncio.wait([self._selector], timeout=max(0.0, remaining) + 0.05)

    def take(self) -> list[MemoryEntry] | None:
        """What the next request should carry (None: nothing new), and remember it went out."""
        self._requests += 1
        shown = {str(e.path) for d in self.delivered for e in d.entries}
        selector = _finished(self._selector)
        if selector is not None and not self._selector_used:
            self._selector_used = True
            if selector.strategy is RecallStrategy.MODEL:
                # The model's choice supersedes the keyword guess (it may rightly choose nothing).
                self._local_shown = True
                return self._deliver([e for e in selector.entries if str(e.path) not in shown], str(RecallStrategy.MODEL))
            self._fallback_reason = selector.fallback_reason
        if not self._local_shown:
            plan = _finished(self._plan)
            if plan is not None:
                self._local_shown = True
                chosen = [e for e in heuristic_selection(plan, MAX_RELEVANT_DOCS) if str(e.path) not in shown]
                return self._deliver(chosen, plan.how)  # "heuristic", or "fused" with semantic recall
        return self._deliver([], "") if self._requests == 1 and self._carried else None

    def _deliver(self, entries: list[MemoryEntry], how: str) -> list[MemoryEntry] | None:
        if self._requests == 1 and self._carried:
            known = {str(e.path) for e in entries}
            carried = [e for e in self._carried if str(e.path) not in known]
            if carried and entries and how == str(RecallStrategy.HEURISTIC):
                how = f"{RecallStrategy.HEURISTIC}+{RecallStrategy.MODEL}"  # both paths chose what goes out
            entries = (entries + carried)[:MAX_RELEVANT_DOCS]
            how = how or "model"
            self._carried = []
        if not entries:
            return None
        elapsed = (time.monotonic() - self.started) * 1000
        self.delivered.append(Delivery(tuple(entries), how, self._requests, elapsed, self._fallback_reason))
        return entries

    def leftover(self) -> list[MemoryEntry]:
        """The selector's picks that settled after the turn's last request and were never shown."""
        selector = _finished(self._selector)
        if selector is None or self._selector_used or selector.strategy is not RecallStrategy.MODEL:
            return []
        shown = {str(e.path) for d in self.delivered for e in d.entries}
        return [e for e in selector.entries if str(e.path) not in shown]

    @property
    def selector_pending(self) -> bool:
        return self._selector is not None and not self._selector.done()

    def cancel(self) -> None:
        self._plan.cancel()
        if self._selector is not None:
            self._selector.cancel()


@dataclass(frozen=True)
class Delivery:
    """Memories one request carried, how they were chosen, and when (ms after submit)."""

    entries: tuple[MemoryEntry, ...]
    how: str
    request: int
    elapsed_ms: float
    fallback_reason: str | None = None


def _finished(future: asyncio.Future[Any] | None) -> Any:
    if future is None or not future.done() or future.cancelled() or future.exception() is not None:
        return None
    return future.result()
