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

from app.context.memory.recall import MAX_RELEVANT_DOCS, RecallResult, recall_for_query
from app.context.memory.selector import RECALL_SELECTOR_TIMEOUT_SECONDS
from app.context.memory.store import MemoryStore
from app.core.llm.provider import Provider

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


def _consume_exception(task: asyncio.Future[RecallResult]) -> None:
    # Retrieving the exception here stops asyncio's "never retrieved" warning; a
    # failed recall only means no memories this turn.
    if not task.cancelled() and task.exception() is not None:
        log.warning("memory recall failed: %s", task.exception())
