"""A Provider for any OpenAI-compatible chat-completions endpoint, on the openai SDK.

The SDK is imported on first use: it costs a noticeable part of a second, and the
TUI must draw its first frame before that.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from app.core.history import Message, ToolCall, Usage
from app.core.llm.errors import LLMError, classify
from app.core.llm.types import (
    ChatRequest,
    Completion,
    FinishPiece,
    ReasoningPiece,
    StreamPiece,
    TextPiece,
    ToolCallPiece,
    UsagePiece,
)

# Local servers need no key, but the SDK refuses an empty one.
_PLACEHOLDER_KEY = "not-needed"


class OpenAICompatProvider:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key or _PLACEHOLDER_KEY
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self._client_instance: Any = None
        # Some older servers reject stream_options; learned once, then left out.
        self._send_stream_options = True

    def _client(self) -> Any:
        if self._client_instance is None:
            import openai

            self._client_instance = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self.api_key,
                max_retries=0,  # retries are ours: bounded, visible, honouring Retry-After
                timeout=openai.Timeout(self.read_timeout, connect=self.connect_timeout),
            )
        return self._client_instance

    async def aclose(self) -> None:
        """Close the connection pool (its sockets would otherwise outlive a session switch)."""
        client, self._client_instance = self._client_instance, None
        if client is not None:
            await client.close()

    def _error(self, exc: BaseException, *, mid_stream: bool = False) -> LLMError:
        return classify(exc, base_url=self.base_url, model=self.model, read_timeout=self.read_timeout, mid_stream=mid_stream)

    def _arguments(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": request.model or self.model, "messages": request.wire_messages()}
        if request.tools:
            kwargs["tools"] = request.tools
        max_tokens = request.max_tokens or self.max_output_tokens
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        temperature = request.temperature if request.temperature is not None else self.temperature
        if temperature is not None:
            kwargs["temperature"] = temperature
        if request.response_format:
            kwargs["response_format"] = request.response_format
        if request.extra_body:
            kwargs["extra_body"] = request.extra_body
        if stream:
            kwargs["stream"] = True
            if self._send_stream_options:
                kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPiece]:
        client = self._client()
        try:
            stream = await client.chat.completions.create(**self._arguments(request, stream=True))
        except Exception as exc:
            error = self._error(exc)
            if error.kind == "bad_request" and "stream_options" in error.message and self._send_stream_options:
                self._send_stream_options = False
                stream = await self._retry_create(client, request)
            else:
                raise error from None
        received = False
        try:
            async for chunk in stream:
                for piece in _pieces(chunk):
                    received = True
                    yield piece
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as exc:
            raise self._error(exc, mid_stream=True) from None
        finally:
            await _close_quietly(stream)
        if not received:
            raise LLMError(
                f"The endpoint at {self.base_url} answered with no data; it does not look like an "
                "OpenAI-compatible streaming endpoint.",
                kind="bad_response",
            )

    async def _retry_create(self, client: Any, request: ChatRequest) -> Any:
        try:
            return await client.chat.completions.create(**self._arguments(request, stream=True))
        except Exception as exc:
            raise self._error(exc) from None

    async def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        client = self._client()
        kwargs = self._arguments(request, stream=False)
        if timeout is not None:
            kwargs["timeout"] = timeout
        try:
            response = await client.chat.completions.create(**kwargs)
        except Exception as exc:
            raise self._error(exc) from None
        if not getattr(response, "choices", None):
            raise LLMError(f"The endpoint at {self.base_url} answered without any choices.", kind="bad_response")
        choice = response.choices[0]
        raw = choice.message
        calls = [
            ToolCall(id=c.id or "", name=c.function.name or "", arguments=c.function.arguments or "")
            for c in (raw.tool_calls or [])
        ]
        message = Message(
            role="assistant",
            content=raw.content or "",
            tool_calls=calls,
            reasoning=_reasoning_of(raw) or "",
        )
        return Completion(message=message, usage=_usage_of(response.usage), finish_reason=choice.finish_reason)


def _pieces(chunk: Any) -> list[StreamPiece]:
    """The pieces in one SSE chunk (usage may ride on any chunk, with or without choices)."""
    pieces: list[StreamPiece] = []
    for choice in getattr(chunk, "choices", None) or []:
        delta = choice.delta
        if delta is not None:
            reasoning = _reasoning_of(delta)
            if reasoning:
                pieces.append(ReasoningPiece(reasoning))
            if delta.content:
                pieces.append(TextPiece(delta.content))
            for call in delta.tool_calls or []:
                function = call.function
                pieces.append(
                    ToolCallPiece(
                        index=call.index if call.index is not None else 0,
                        id=call.id,
                        name=function.name if function else None,
                        arguments=(function.arguments or "") if function else "",
                    )
                )
        if choice.finish_reason:
            pieces.append(FinishPiece(choice.finish_reason))
    usage = _usage_of(getattr(chunk, "usage", None))
    if usage is not None:
        pieces.append(UsagePiece(usage))
    return pieces


def _reasoning_of(obj: Any) -> str | None:
    # DashScope and vLLM say reasoning_content; OpenRouter and Ollama say reasoning.
    for name in ("reasoning_content", "reasoning"):
        value = getattr(obj, name, None)
        if isinstance(value, str) and value:
            return value
    return None


def _usage_of(raw: Any) -> Usage | None:
    if raw is None:
        return None
    details = getattr(raw, "completion_tokens_details", None)
    prompt_details = getattr(raw, "prompt_tokens_details", None)
    prompt = int(getattr(raw, "prompt_tokens", 0) or 0)
    completion = int(getattr(raw, "completion_tokens", 0) or 0)
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=int(getattr(raw, "total_tokens", 0) or (prompt + completion)),
        reasoning_tokens=int(getattr(details, "reasoning_tokens", 0) or 0) if details else 0,
        cached_tokens=int(getattr(prompt_details, "cached_tokens", 0) or 0) if prompt_details else 0,
    )


async def _close_quietly(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if close is None:
        return
    try:
        await close()
    except Exception:  # closing a broken connection may fail again; the real error is already raised
        pass
