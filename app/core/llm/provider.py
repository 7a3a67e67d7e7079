"""The Provider protocol and the retry loop around a provider's stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

from app.core.llm.errors import LLMError
from app.core.llm.retry import RetryPolicy
from app.core.llm.types import ChatRequest, Completion, RetryPiece, StreamPiece


class Provider(Protocol):
    """A model endpoint. ``stream`` is one attempt: it raises LLMError and never retries."""

    model: str
    base_url: str
    read_timeout: float

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamPiece]: ...

    async def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion: ...

    async def aclose(self) -> None: ...


async def stream_with_retries(
    provider: Provider,
    request: ChatRequest,
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> AsyncIterator[StreamPiece]:
    """The provider's stream, restarted on retryable failures within the policy's bounds.

    A RetryPiece tells the consumer to wait (and, if it already showed a partial
    reply, to drop it): the retried attempt starts the reply from the beginning.
    """
    waited = 0.0
    retry_number = 0
    while True:
        yielded = False
        try:
            async for piece in provider.stream(request):
                yielded = True
                yield piece
            return
        except LLMError as error:
            retry_number += 1
            delay = policy.delay_for(error, retry_number, waited)
            if delay is None:
                refusal = policy.refusal(error, retry_number, waited)
                if refusal:
                    error.message = f"{error.message.rstrip('.')}; {refusal}."
                elif retry_number > 1:
                    error.message = f"{error.message} (gave up after {retry_number} attempts)"
                raise
            yield RetryPiece(
                attempt=retry_number,
                max_attempts=policy.max_retries,
                delay=delay,
                reason=error.message,
                discard_partial=yielded,
            )
            await sleep(delay)
            waited += delay
