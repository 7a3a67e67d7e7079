"""A Provider for any OpenAI-compatible chat-completions endpoint, spoken over httpx2 directly.

One POST to ``<base_url>/chat/completions``; a streamed answer is read as server-sent
events, each a JSON chunk, until ``[DONE]``. Going without the openai SDK keeps about a
quarter of a second of imports (its hundreds of API types) off every headless turn
and off the TUI's first request; httpx2 itself is imported on first use.

Every request has an end. Progress is a complete piece of the answer, so the wait for
the next one (``read_timeout``) is timed here around each event rather than left to the
socket's read timeout, which every keep-alive comment or dripped byte restarts; the
whole request has a deadline (``request_timeout``); one line of the stream and the
whole answer have caps. A stream that ends without ``[DONE]`` and without a finish
reason did not finish: before any piece it is an error worth retrying, after some it
ends with an ``InterruptedPiece``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from app import __version__
from app.core.history import Message, ToolCall, Usage
from app.core.llm import errors
from app.core.llm.errors import LLMError, classify, from_error_object, from_status
from app.core.llm.sse import DEFAULT_MAX_LINE_BYTES, LineTooLong, bounded_lines, server_events
from app.core.llm.types import (
    ChatRequest,
    Completion,
    FinishPiece,
    InterruptedPiece,
    ReasoningPiece,
    StreamPiece,
    TextPiece,
    ToolCallPiece,
    UsagePiece,
)

# Local servers need no key; some proxies still want the header present.
_PLACEHOLDER_KEY = "not-needed"
# An error body longer than this is not read further (its start is quoted instead of its message).
_MAX_ERROR_BODY = 1024 * 1024
DEFAULT_REQUEST_TIMEOUT = 1800.0
DEFAULT_MAX_ANSWER_CHARS = 4_000_000


class OpenAICompatProvider:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
        max_output_tokens: int | None = None,
        temperature: float | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key or _PLACEHOLDER_KEY
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.request_timeout = request_timeout
        self.max_line_bytes = max_line_bytes
        self.max_answer_chars = max_answer_chars
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self._client_instance: Any = None
        # Some older servers reject stream_options; learned once, then left out.
        self._send_stream_options = True

    def _client(self) -> Any:
        if self._client_instance is None:
            from app.core.llm.http_client import make_client

            self._client_instance = make_client(
                self.base_url,
                read_timeout=self.read_timeout,
                connect_timeout=self.connect_timeout,
                headers={
                    "Authorization": f"Bearer {self.api_key}",
                    "Accept": "application/json",
                    "User-Agent": f"agentctx-tui/{__version__}",
                },
            )
        return self._client_instance

    @property
    def _url(self) -> str:
        return f"{self.base_url}/chat/completions"

    async def aclose(self) -> None:
        """Close the connection pool (its sockets would otherwise outlive a session switch)."""
        client, self._client_instance = self._client_instance, None
        if client is not None:
            await client.aclose()

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
            kwargs.update(request.extra_body)
        if stream:
            kwargs["stream"] = True
            if self._send_stream_options:
                kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPiece]:
        try:
            async for piece in self._stream_once(request):
                yield piece
        except LLMError as error:
            if error.kind != "bad_request" or "stream_options" not in error.message or not self._send_stream_options:
                raise
            self._send_stream_options = False
            async for piece in self._stream_once(request):
                yield piece

    async def _stream_once(self, request: ChatRequest) -> AsyncIterator[StreamPiece]:
        client = self._client()
        body = self._arguments(request, stream=True)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.request_timeout
        progress = _Progress(loop.time(), self.read_timeout, deadline)
        received = finished = done = spoke = False
        answered = False
        size = 0
        response: Any = None
        events: Any = None
        try:
            async with asyncio.timeout_at(progress.next_deadline()) as scope:
                response = await client.send(_post(client, self._url, body), stream=True)
                if response.status_code >= 300:
                    raise await self._status_error(response)
            answered = True
            events = server_events(bounded_lines(response.aiter_bytes(), self.max_line_bytes), self.max_line_bytes).__aiter__()
            while True:
                async with asyncio.timeout_at(progress.next_deadline()) as scope:
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        break
                spoke = True
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                pieces = _pieces(self._chunk(event.data, event.event))
                for piece in pieces:
                    size += _size(piece)
                    if size > self.max_answer_chars:
                        raise errors.answer_too_long(self.base_url, self.max_answer_chars)
                    finished = finished or isinstance(piece, FinishPiece)
                    received = True
                    yield piece
                if any(not isinstance(piece, UsagePiece) for piece in pieces):
                    progress.moved(loop.time())
        except TimeoutError:
            if not scope.expired():
                raise self._error(TimeoutError(), mid_stream=answered) from None
            if progress.next_deadline() >= deadline:
                raise errors.past_deadline(self.base_url, self.request_timeout) from None
            raise errors.silence(self.base_url, self.read_timeout) from None
        except LineTooLong:
            raise errors.line_too_long(self.base_url, self.max_line_bytes) from None
        except (asyncio.CancelledError, GeneratorExit, LLMError):
            raise
        except Exception as exc:
            raise self._error(exc, mid_stream=answered) from None
        finally:
            # Closing the stream closes its connection: a runaway body is not drained.
            if events is not None:
                await events.aclose()
            if response is not None:
                await response.aclose()
        if not received:
            if spoke and not done:
                raise errors.interrupted_before_answer(self.base_url)
            raise LLMError(
                f"The endpoint at {self.base_url} answered with no data; it does not look like an "
                "OpenAI-compatible streaming endpoint.",
                kind="bad_response",
            )
        if not done and not finished:
            yield InterruptedPiece()

    async def _status_error(self, response: Any) -> LLMError:
        """The error for an HTTP error answer, with the server's own message when it gave one."""
        raw = b""
        async for part in response.aiter_bytes():
            raw += part
            if len(raw) >= _MAX_ERROR_BODY:
                break
        text = raw[:_MAX_ERROR_BODY].decode("utf-8", errors="replace")
        headers = {key.lower(): value for key, value in response.headers.items()}
        if response.status_code < 400:
            return errors.redirected(self.base_url, response.status_code, headers.get("location", ""), url=self._url)
        return from_status(response.status_code, _json_or_none(text), text, headers, base_url=self.base_url, model=self.model)

    def _chunk(self, data: str, event: str) -> Mapping[str, Any]:
        """One event's JSON chunk; an error event or an ``error`` object becomes an LLMError."""
        try:
            chunk = json.loads(data)
        except ValueError:
            raise LLMError(
                f"The endpoint at {self.base_url} sent something that is not an OpenAI-compatible answer "
                f"(a streamed event that is not JSON: {data[:80]!r}).",
                kind="bad_response",
            ) from None
        if not isinstance(chunk, dict):
            raise LLMError(
                f"The endpoint at {self.base_url} sent something that is not an OpenAI-compatible answer "
                f"(a streamed event that is not a JSON object: {data[:80]!r}).",
                kind="bad_response",
            )
        if event == "error" or chunk.get("error"):
            raise from_error_object(chunk.get("error", chunk))
        return chunk

    async def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        client = self._client()
        options: dict[str, Any] = {"content": json_body(self._arguments(request, stream=False)), "headers": _JSON}
        if timeout is not None:
            options["timeout"] = timeout
        try:
            # The overall deadline holds here too: a server dripping its answer never resets it.
            async with asyncio.timeout(self.request_timeout):
                response = await client.post(self._url, **options)
        except TimeoutError:
            raise errors.past_deadline(self.base_url, self.request_timeout) from None
        except Exception as exc:
            raise self._error(exc) from None
        if response.status_code >= 300:
            raise await self._status_error(response)
        payload = _json_or_none(response.text)
        if not isinstance(payload, dict):
            raise LLMError(f"The endpoint at {self.base_url} sent something that is not an OpenAI-compatible answer.", kind="bad_response")
        if payload.get("error"):
            raise from_error_object(payload["error"])
        choices = payload.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise LLMError(f"The endpoint at {self.base_url} answered without any choices.", kind="bad_response")
        choice = choices[0]
        raw = _mapping(choice.get("message"))
        calls = [
            ToolCall(id=_text(call.get("id")), name=_text(function.get("name")), arguments=_text(function.get("arguments")))
            for call in map(_mapping, _list(raw.get("tool_calls")))
            for function in [_mapping(call.get("function"))]
        ]
        message = Message(role="assistant", content=_text(raw.get("content")), tool_calls=calls, reasoning=_reasoning_of(raw))
        return Completion(message=message, usage=_usage_of(payload.get("usage")), finish_reason=choice.get("finish_reason"))


_JSON = {"Content-Type": "application/json"}


def json_body(body: Mapping[str, Any]) -> bytes:
    """The request body as UTF-8 JSON; a lone surrogate anywhere in it (an undecodable file name a
    source did not escape) is written as the tools show it (app/core/undecodable.py) instead of
    failing the request with an encoding error."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        from app.core.undecodable import scrub

        return json.dumps(scrub(body), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _post(client: Any, url: str, body: Mapping[str, Any]) -> Any:
    return client.build_request("POST", url, content=json_body(body), headers=_JSON)


class _Progress:
    """When the wait for the next piece of the answer ends: ``read_timeout`` after the last one, never past the deadline."""

    def __init__(self, now: float, read_timeout: float, deadline: float) -> None:
        self.read_timeout = read_timeout
        self.deadline = deadline
        self.last = now

    def moved(self, now: float) -> None:
        self.last = now

    def next_deadline(self) -> float:
        return min(self.last + self.read_timeout, self.deadline)


def _size(piece: StreamPiece) -> int:
    if isinstance(piece, (TextPiece, ReasoningPiece)):
        return len(piece.text)
    if isinstance(piece, ToolCallPiece):
        return len(piece.arguments) + len(piece.name or "")
    return 0


def _pieces(chunk: Mapping[str, Any]) -> list[StreamPiece]:
    """The pieces in one SSE chunk (usage may ride on any chunk, with or without choices).

    Fields of the wrong type are treated as absent: servers differ in what they leave null.
    """
    pieces: list[StreamPiece] = []
    for choice in map(_mapping, _list(chunk.get("choices"))):
        delta = _mapping(choice.get("delta"))
        reasoning = _reasoning_of(delta)
        if reasoning:
            pieces.append(ReasoningPiece(reasoning))
        content = _text(delta.get("content"))
        if content:
            pieces.append(TextPiece(content))
        for call in map(_mapping, _list(delta.get("tool_calls"))):
            function = _mapping(call.get("function"))
            index = call.get("index")
            pieces.append(
                ToolCallPiece(
                    index=index if isinstance(index, int) and not isinstance(index, bool) else None,
                    id=call.get("id") if isinstance(call.get("id"), str) else None,
                    name=function.get("name") if isinstance(function.get("name"), str) else None,
                    arguments=_text(function.get("arguments")),
                )
            )
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            pieces.append(FinishPiece(finish))
    usage = _usage_of(chunk.get("usage"))
    if usage is not None:
        pieces.append(UsagePiece(usage))
    return pieces


def _reasoning_of(obj: Mapping[str, Any]) -> str:
    # DashScope and vLLM say reasoning_content; OpenRouter and Ollama say reasoning.
    for name in ("reasoning_content", "reasoning"):
        value = obj.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _usage_of(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt = _count(raw.get("prompt_tokens"))
    completion = _count(raw.get("completion_tokens"))
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=_count(raw.get("total_tokens")) or (prompt + completion),
        reasoning_tokens=_count(_mapping(raw.get("completion_tokens_details")).get("reasoning_tokens")),
        cached_tokens=_count(_mapping(raw.get("prompt_tokens_details")).get("cached_tokens")),
    )


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
