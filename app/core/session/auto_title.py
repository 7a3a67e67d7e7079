"""Naming a session by itself after its first finished exchange.

The side query runs as a background task once the turn is over, never on the
request path. A failure is retried after a later turn, up to
AUTO_TITLE_ATTEMPT_CAP attempts for the session in this process; a title
(automatic or manual) ends it for good.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from app.core.history import Message
from app.core.llm.errors import LLMError
from app.core.llm.provider import Provider
from app.core.llm.side_query import side_query
from app.core.protocols import TurnObserver
from app.core.session.recorder import SessionRecorder
from app.core.session.records import TITLE_SOURCE_AUTO
from app.core.session.titles import (
    AUTO_TITLE_ATTEMPT_CAP,
    TITLE_MAX_OUTPUT_TOKENS,
    TITLE_SYSTEM_PROMPT,
    TITLE_TEMPERATURE,
    clean_title,
    title_prompt,
)

TITLE_TIMEOUT_SECONDS = 20.0


class AutoTitler(TurnObserver):
    """Told when a turn ends (a TurnObserver): the session names itself after a finished one."""

    def __init__(
        self,
        recorder: SessionRecorder,
        provider: Provider | None,
        *,
        enabled: bool = True,
        cap: int = AUTO_TITLE_ATTEMPT_CAP,
        timeout: float = TITLE_TIMEOUT_SECONDS,
    ) -> None:
        self.recorder = recorder
        self.provider = provider
        self.enabled = enabled and provider is not None
        self.cap = cap
        self.timeout = timeout
        self.attempts = 0
        self.last_problem = ""
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def wanted(self) -> bool:
        return self.enabled and self.recorder.title is None and self.attempts < self.cap and not self.running

    def on_turn_end(self, history: list[Message], finished: bool) -> None:
        self.turn_ended(history, finished=finished)

    def turn_ended(self, history: Sequence[Message], *, finished: bool) -> None:
        """After a turn: start a title attempt in the background when the session still needs one."""
        if not finished or not self.wanted():
            return
        prompt = title_prompt(history)
        if prompt is None:
            return
        self.attempts += 1
        self._task = asyncio.create_task(self._attempt(prompt), name="session-auto-title")

    async def _attempt(self, prompt: str) -> None:
        assert self.provider is not None
        try:
            answer = await side_query(
                self.provider,
                system=TITLE_SYSTEM_PROMPT,
                prompt=prompt,
                max_tokens=TITLE_MAX_OUTPUT_TOKENS,
                temperature=TITLE_TEMPERATURE,
                timeout=self.timeout,
            )
        except LLMError as error:
            self.last_problem = error.message
            return
        except Exception as error:  # a title is never worth a crash
            self.last_problem = f"{type(error).__name__}: {error}"
            return
        title = clean_title(answer)
        if not title:
            self.last_problem = "the model answered without a title"
            return
        try:
            # Refused (None) when the person named the session while the query ran: theirs wins.
            self.recorder.append_title(title, TITLE_SOURCE_AUTO)
        except OSError as error:
            self.last_problem = f"could not record the title: {error}"

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def drain(self, timeout: float) -> None:
        """Let a running attempt finish within ``timeout`` seconds, else cancel it."""
        task = self._task
        if task is None or task.done():
            return
        if timeout > 0:
            await asyncio.wait([task], timeout=timeout)
        if not task.done():
            task.cancel()
            await asyncio.wait([task], timeout=2)
