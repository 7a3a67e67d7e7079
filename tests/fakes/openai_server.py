"""A scripted, OpenAI-compatible HTTP server for tests and demos.

It is a real HTTP server on 127.0.0.1 (stdlib ``ThreadingHTTPServer`` in a
daemon thread, ephemeral port by default) that speaks the chat-completions
protocol well enough for the real ``openai`` SDK to talk to it::

    with FakeOpenAIServer() as server:
        server.push(Reply.text("Hello ", "world"))
        client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        ...
        assert server.requests[0].body["messages"][-1]["content"] == "hi"

Endpoints:

* ``POST /v1/chat/completions`` - consumes the next queued :class:`Reply`
  (FIFO).  When the queue is empty, ``server.responder(request)`` is called if
  it is set; otherwise the answer is HTTP 500 with a "script ran out" error.
  ``stream: true`` gets ``text/event-stream`` (chunked transfer encoding, one
  flushed ``data: {...}\\n\\n`` event per chunk, ending in ``data: [DONE]``);
  otherwise a single ``chat.completion`` JSON object.
* ``GET /v1/models`` (and ``GET /v1/models/<id>``) - the configured model(s).
* anything else - 404 with a JSON error body.

Every chat request is recorded (before it is answered) in ``server.requests``;
every request of any kind is in ``server.all_requests``.
"""

from __future__ import annotations

import itertools
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

__all__ = [
    "FakeOpenAIServer",
    "Wire",
    "RecordedRequest",
    "Reply",
    "ToolCall",
    "split_json",
    "split_words",
]

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
SCRIPT_RAN_OUT = "fake OpenAI server: the test script ran out of replies"

_ids = itertools.count(1)


def _next_id() -> int:
    return next(_ids)


# --------------------------------------------------------------------------- helpers


def split_words(text: str) -> list[str]:
    """Split ``text`` into word-sized pieces that concatenate back to ``text`` exactly.

    Each piece is a run of non-space characters plus the whitespace after it
    (leading whitespace stays attached to the first piece).
    """
    if not text:
        return []
    return [piece for piece in re.split(r"(?<=\s)(?=\S)", text) if piece]


def split_json(arguments: str | Mapping[str, Any], parts: int = 3) -> list[str]:
    """JSON-encode ``arguments`` (unless already a string) and cut it into ``parts`` pieces.

    Short strings get fewer pieces; no piece is empty unless the whole string is.
    """
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    parts = max(1, min(parts, len(text)))
    if len(text) == 0:
        return [""]
    size, extra = divmod(len(text), parts)
    pieces: list[str] = []
    start = 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def _as_chunks(value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(value)


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class ToolCall:
    """One scripted tool call; ``arguments`` are the pieces streamed in order."""

    id: str
    name: str
    arguments: tuple[str, ...] = ("{}",)

    @property
    def arguments_json(self) -> str:
        return "".join(self.arguments)

    @classmethod
    def of(cls, value: ToolCallLike) -> ToolCall:
        """Accept a ToolCall or an ``(id | None, name, arguments)`` tuple.

        ``arguments`` may be a string (sent as one piece), a list of string
        pieces (sent as given), or a mapping (JSON-encoded and split in 3).
        A ``None`` id is replaced by a generated ``call_...`` id.
        """
        if isinstance(value, ToolCall):
            return value
        call_id, name, arguments = value
        if call_id is None:
            call_id = f"call_fake{_next_id():06d}"
        if isinstance(arguments, Mapping):
            pieces = tuple(split_json(arguments))
        elif isinstance(arguments, str):
            pieces = (arguments,)
        else:
            pieces = tuple(arguments)
        return cls(id=call_id, name=name, arguments=pieces)


ToolCallLike = Union[ToolCall, tuple[Union[str, None], str, Union[str, Sequence[str], Mapping[str, Any]]]]


@dataclass(frozen=True)
class Reply:
    """What the server does with one chat request.  Build it with the classmethods."""

    kind: str  # "completion" | "error" | "drop" | "stall" | "garbage" | "stream_error" | "sse" | "wire"
    content: tuple[str, ...] = ()
    reasoning: tuple[str, ...] = ()
    calls: tuple[ToolCall, ...] = ()  # tool calls
    finish_reason: str | None = "stop"
    usage: tuple[int, int] | None = None
    cached: int | None = None  # prompt tokens the server says it served from its cache (prompt_tokens_details)
    delay: float = 0.0
    model: str | None = None
    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str | None = None
    seconds: float = 0.0
    error_object: Mapping[str, Any] | None = None  # for stream_error
    events: tuple[Any, ...] = ()  # for sse: the data payloads, verbatim
    done: bool = True  # for sse: end with data: [DONE]
    writer: Callable[[Wire], None] | None = None  # for wire: writes the whole response itself
    indexless: bool = False  # tool calls sent whole, each with its own id and no "index"

    # -- normal replies -----------------------------------------------------------

    @classmethod
    def text(
        cls,
        *chunks: str,
        reasoning: str | Sequence[str] | None = None,
        usage: tuple[int, int] | None = None,
        delay: float = 0.0,
        finish_reason: str = "stop",
        model: str | None = None,
        cached: int | None = None,
    ) -> Reply:
        """A text answer; each chunk is one content delta, reasoning deltas come first."""
        return cls(
            kind="completion",
            content=tuple(chunks),
            reasoning=_as_chunks(reasoning),
            usage=usage,
            cached=cached,
            delay=delay,
            finish_reason=finish_reason,
            model=model,
        )

    @classmethod
    def tool_calls(
        cls,
        calls: Sequence[ToolCallLike],
        *,
        text: str | Sequence[str] | None = None,
        reasoning: str | Sequence[str] | None = None,
        usage: tuple[int, int] | None = None,
        delay: float = 0.0,
        finish_reason: str = "tool_calls",
        model: str | None = None,
        cached: int | None = None,
    ) -> Reply:
        """Tool calls (streamed after any ``text``), ``finish_reason="tool_calls"``.

        Each call is a :class:`ToolCall` or ``(id, name, arguments)``; see :meth:`ToolCall.of`.
        """
        return cls(
            kind="completion",
            content=_as_chunks(text),
            reasoning=_as_chunks(reasoning),
            calls=tuple(ToolCall.of(c) for c in calls),
            usage=usage,
            cached=cached,
            delay=delay,
            finish_reason=finish_reason,
            model=model,
        )

    @classmethod
    def whole_calls(cls, calls: Sequence[ToolCallLike], *, finish_reason: str = "tool_calls") -> Reply:
        """Tool calls as some servers send them: each in one chunk, with its own ``id`` and no ``index``."""
        return replace(cls.tool_calls(calls, finish_reason=finish_reason), indexless=True)

    @classmethod
    def cut_by_length(cls, name: str, arguments_start: str, *, call_id: str = "call_cut") -> Reply:
        """A tool call whose arguments stop mid-JSON, then ``finish_reason: "length"`` (the output limit)."""
        return cls.tool_calls([(call_id, name, [arguments_start])], finish_reason="length")

    # -- failures -----------------------------------------------------------------

    @classmethod
    def redirect(cls, location: str, status: int = 307) -> Reply:
        """An HTTP redirect to ``location`` (an empty body), as a proxy or a moved endpoint answers."""
        return cls.error(status, b"", headers={"Location": location}, content_type="text/plain")

    @classmethod
    def rate_limited(cls, retry_after: str | float, status: int = 429) -> Reply:
        """HTTP 429 (or ``status``) asking the client to wait ``retry_after`` (seconds or an HTTP date)."""
        return cls.error(status, headers={"Retry-After": str(retry_after)})

    @classmethod
    def error(
        cls,
        status: int,
        body: Any = None,
        *,
        headers: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Reply:
        """An HTTP error: any status, a JSON body (dict/list) or raw str/bytes, extra headers."""
        if body is None:
            body = {"error": {"message": f"fake HTTP {status}", "type": "fake_error", "code": None}}
        return cls(kind="error", status=status, body=body, headers=dict(headers or {}), content_type=content_type)

    @classmethod
    def drop(cls, after: Sequence[str] = (), *, delay: float = 0.0) -> Reply:
        """Send these content chunks, then close the socket mid-body (no finish chunk, no [DONE])."""
        return cls(kind="drop", content=tuple(after), delay=delay, finish_reason=None)

    @classmethod
    def stall(
        cls,
        seconds: float,
        after: Sequence[str] = (),
        *,
        delay: float = 0.0,
        finish_reason: str = "stop",
    ) -> Reply:
        """Send these chunks, then go silent for ``seconds`` (then finish normally).

        A non-streaming request waits ``seconds`` before anything is sent.  The
        wait ends early when the server stops, so it never blocks shutdown.
        """
        return cls(kind="stall", content=tuple(after), seconds=seconds, delay=delay, finish_reason=finish_reason)

    @classmethod
    def garbage(
        cls,
        data: bytes | str,
        *,
        status: int = 200,
        content_type: str = "text/plain",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """Answer with these raw bytes, whatever the request asked for."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        return cls(kind="garbage", body=raw, status=status, content_type=content_type, headers=dict(headers or {}))

    @classmethod
    def stream_error(
        cls,
        after: Sequence[str] = (),
        *,
        message: str = "fake mid-stream error",
        type: str = "server_error",  # noqa: A002 - mirrors the OpenAI error field
        code: str | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """Stream these chunks, then a ``data: {"error": {...}}`` event, then end the body.

        A non-streaming request gets HTTP 500 with the same error object.
        """
        return cls(
            kind="stream_error",
            content=tuple(after),
            delay=delay,
            finish_reason=None,
            error_object={"message": message, "type": type, "code": code},
        )

    @classmethod
    def sse(cls, *events: str | Mapping[str, Any], done: bool = True, delay: float = 0.0) -> Reply:
        """Stream exactly these SSE ``data:`` payloads (a str as written, a mapping as JSON), then ``[DONE]``.

        For what the well-formed kinds cannot say: a malformed chunk
        (``"{not json"``), a chunk with fields no spec has, a stream without a
        finish.  :meth:`chunk` builds an ordinary chunk to put around them.  A
        non-streaming request gets HTTP 500 (these are stream-only faults).
        """
        return cls(kind="sse", events=tuple(events), delay=delay, finish_reason=None, done=done)

    @classmethod
    def wire(cls, writer: Callable[[Wire], None]) -> Reply:
        """``writer(wire)`` writes the raw response bytes itself, status line included.

        For endpoints that misbehave below the event level: headers dripped a byte
        at a time, keep-alive comments forever, one endless line, a body that ends
        cleanly in the middle of an answer. ``wire.write`` raises ``_Aborted`` once
        the client has gone or the server stops, so an endless writer ends.
        """
        return cls(kind="wire", writer=writer, finish_reason=None)

    @staticmethod
    def chunk(delta: Mapping[str, Any] | None = None, finish_reason: str | None = None, **extra: Any) -> dict[str, Any]:
        """A ``chat.completion.chunk`` object for :meth:`sse`; ``extra`` adds (or overrides) top-level fields."""
        chunk: dict[str, Any] = {
            "id": "chatcmpl-fake-sse",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "delta": dict(delta or {}), "logprobs": None, "finish_reason": finish_reason}],
        }
        chunk.update(extra)
        return chunk

    def with_model(self, model: str | None) -> Reply:
        return replace(self, model=model)


# --------------------------------------------------------------------------- requests


@dataclass
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]  # lower-case keys
    body: Any  # parsed JSON (usually a dict), or None when the body was empty / not JSON
    raw_body: bytes = b""

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return self.body["messages"]
        return []

    @property
    def conversation(self) -> list[dict[str, Any]]:
        """The messages after the system prompt and agentctx's start-of-session prelude.

        The prelude is the first user message when it is a ``<system-reminder>``
        block, and the assistant acknowledgement after it.
        """
        messages = [m for m in self.messages if m.get("role") != "system"]
        first = messages[0] if messages else {}
        if str(first.get("content") or "").startswith("<system-reminder>") and len(messages) > 1:
            return messages[2:]
        return messages

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None


# --------------------------------------------------------------------------- server


class _Aborted(Exception):
    """The server is stopping; abandon the current response."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], fake: FakeOpenAIServer) -> None:
        self.fake = fake
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, _Aborted)) or self.fake.stopping:
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    # -- plumbing -------------------------------------------------------------------

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._untrack(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep test output clean

    @property
    def fake(self) -> FakeOpenAIServer:
        return self.server.fake

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is not None:
            return self.rfile.read(int(length)) if int(length) > 0 else b""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = bytearray()
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def _record(self, raw: bytes) -> RecordedRequest:
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        return RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw_body=raw,
        )

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_json(self, status: int, obj: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(obj).encode(), "application/json", headers)

    def _send_error_json(self, status: int, message: str, type_: str = "invalid_request_error") -> None:
        self._send_json(status, {"error": {"message": message, "type": type_, "param": None, "code": None}})

    def _abort_connection(self) -> None:
        """Close the socket with the response unfinished."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # -- routing --------------------------------------------------------------------

    def do_GET(self) -> None:
        raw = self._read_body()
        self.fake._record_any(self._record(raw))
        path = self.path.split("?", 1)[0].rstrip("/")
        created = int(time.time())
        if path == MODELS_PATH:
            data = [{"id": m, "object": "model", "created": created, "owned_by": "fake"} for m in self.fake.models]
            self._send_json(200, {"object": "list", "data": data})
        elif path.startswith(MODELS_PATH + "/") and path[len(MODELS_PATH) + 1 :] in self.fake.models:
            model = path[len(MODELS_PATH) + 1 :]
            self._send_json(200, {"id": model, "object": "model", "created": created, "owned_by": "fake"})
        else:
            self._send_error_json(404, f"fake OpenAI server: unknown path GET {self.path}")

    def do_POST(self) -> None:
        raw = self._read_body()
        request = self._record(raw)
        path = self.path.split("?", 1)[0].rstrip("/")
        if path != CHAT_PATH:
            self.fake._record_any(request)
            self._send_error_json(404, f"fake OpenAI server: unknown path POST {self.path}")
            return
        self.fake._record_chat(request)
        if not isinstance(request.body, dict):
            self._send_error_json(400, "fake OpenAI server: request body is not a JSON object")
            return
        try:
            reply = self.fake._next_reply(request)
        except Exception as exc:  # a broken responder is a test bug: say so loudly
            self._send_error_json(500, f"fake OpenAI server: responder raised {exc!r}", "fake_server_error")
            return
        if reply is None:
            self._send_error_json(500, SCRIPT_RAN_OUT, "fake_server_error")
            return
        try:
            _Responder(self, request, reply).run()
        except _Aborted:
            self._abort_connection()
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def do_PUT(self) -> None:
        self._unknown()

    def do_DELETE(self) -> None:
        self._unknown()

    def do_PATCH(self) -> None:
        self._unknown()

    def _unknown(self) -> None:
        self.fake._record_any(self._record(self._read_body()))
        self._send_error_json(404, f"fake OpenAI server: unknown path {self.command} {self.path}")


class Wire:
    """The raw socket of one response, for :meth:`Reply.wire` writers."""

    def __init__(self, handler: _Handler, stop: threading.Event) -> None:
        self._h = handler
        self._stop = stop
        self.bytes_written = 0

    def write(self, data: bytes) -> None:
        if self._stop.is_set():
            raise _Aborted
        try:
            self._h.wfile.write(data)
            self._h.wfile.flush()
        except OSError:
            raise _Aborted from None
        self.bytes_written += len(data)

    def sleep(self, seconds: float) -> None:
        if self._stop.wait(seconds):
            raise _Aborted

    def headers(self, content_type: str = "text/event-stream") -> None:
        """A 200 status line and headers for a body that runs until the connection closes."""
        self.write(f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n".encode())

    def event(self, payload: Any) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        self.write(f"data: {text}\n\n".encode())


class _Responder:
    """Renders one Reply onto one request."""

    def __init__(self, handler: _Handler, request: RecordedRequest, reply: Reply) -> None:
        self.h = handler
        self.request = request
        self.reply = reply
        self.body: dict[str, Any] = request.body
        self.stop = handler.fake._stop_event
        self.id = f"chatcmpl-fake{_next_id():06d}"
        self.created = int(time.time())
        self.model = reply.model or self.body.get("model") or handler.fake.model
        self.streaming = bool(self.body.get("stream"))
        opts = self.body.get("stream_options")
        self.include_usage = isinstance(opts, dict) and bool(opts.get("include_usage"))

    def run(self) -> None:
        r = self.reply
        if r.kind == "wire":
            assert r.writer is not None
            self.h.close_connection = True
            r.writer(Wire(self.h, self.stop))
            return
        if r.kind == "error":
            data = r.body if isinstance(r.body, (bytes, str)) else json.dumps(r.body)
            raw = data.encode() if isinstance(data, str) else data
            self.h._send_bytes(r.status, raw, r.content_type or "application/json", r.headers)
        elif r.kind == "garbage":
            self.h._send_bytes(r.status, r.body, r.content_type or "text/plain", r.headers)
        elif self.streaming:
            self._stream()
        else:
            self._complete()

    # -- shared ---------------------------------------------------------------------

    def _sleep(self, seconds: float) -> None:
        if seconds > 0 and self.stop.wait(seconds):
            raise _Aborted
        if self.stop.is_set():
            raise _Aborted

    def _usage(self) -> dict[str, Any]:
        if self.reply.usage is not None:
            prompt, completion = self.reply.usage
        else:
            prompt = max(1, len(json.dumps(self.body.get("messages", []))) // 4)
            produced = "".join(self.reply.content) + "".join(self.reply.reasoning)
            produced += "".join(call.name + call.arguments_json for call in self.reply.calls)
            completion = max(1, len(produced) // 4)
        usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        if self.reply.cached is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": self.reply.cached}
        return usage

    # -- non-streaming ----------------------------------------------------------------

    def _completion_object(self) -> dict[str, Any]:
        r = self.reply
        message: dict[str, Any] = {"role": "assistant", "content": "".join(r.content) if r.content else None}
        if not r.content and not r.calls:
            message["content"] = ""
        if r.reasoning:
            message["reasoning_content"] = "".join(r.reasoning)
        if r.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for c in r.calls
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": r.finish_reason, "logprobs": None}],
            "usage": self._usage(),
        }

    def _complete(self) -> None:
        r = self.reply
        if r.kind == "sse":
            self.h._send_error_json(500, "fake OpenAI server: an sse reply needs a streaming request", "fake_server_error")
            return
        if r.kind == "stream_error":
            self.h._send_json(500, {"error": dict(r.error_object or {})})
            return
        if r.kind == "stall":
            self._sleep(r.seconds)
        data = json.dumps(self._completion_object()).encode()
        if r.kind == "drop":
            # Promise the whole body, deliver half of it, hang up.
            self.h.send_response(200)
            self.h.send_header("Content-Type", "application/json")
            self.h.send_header("Content-Length", str(len(data)))
            self.h.end_headers()
            self.h.wfile.write(data[: len(data) // 2])
            raise _Aborted
        self.h._send_bytes(200, data, "application/json")

    # -- streaming --------------------------------------------------------------------

    def _write_chunk(self, data: bytes) -> None:
        self.h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.h.wfile.flush()

    def _end_body(self) -> None:
        self.h.wfile.write(b"0\r\n\r\n")  # the terminating zero-length chunk
        self.h.wfile.flush()

    def _event(self, payload: Any, *, pause: bool = True) -> None:
        if pause:
            self._sleep(self.reply.delay)
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        self._write_chunk(f"data: {text}\n\n".encode())

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }

    def _stream(self) -> None:
        r = self.reply
        h = self.h
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream; charset=utf-8")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        h.wfile.flush()

        if r.kind == "sse":
            self._raw_events()
            return
        self._event(self._chunk({"role": "assistant", "content": ""}), pause=False)
        for piece in r.reasoning:
            self._event(self._chunk({"reasoning_content": piece}))
        for piece in r.content:
            self._event(self._chunk({"content": piece}))
        for index, call in enumerate(r.calls):
            if r.indexless:
                whole = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments_json}}
                self._event(self._chunk({"tool_calls": [whole]}))
                continue
            first = {
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            self._event(self._chunk({"tool_calls": [first]}))
            for piece in call.arguments:
                self._event(self._chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))

        if r.kind == "drop":
            raise _Aborted
        if r.kind == "stream_error":
            self._event({"error": dict(r.error_object or {})})
            self._end_body()
            return
        if r.kind == "stall":
            self._sleep(r.seconds)

        self._event(self._chunk({}, r.finish_reason))
        if self.include_usage:
            usage_chunk = self._chunk({})
            usage_chunk["choices"] = []
            usage_chunk["usage"] = self._usage()
            self._event(usage_chunk, pause=False)
        self._event("[DONE]", pause=False)
        self._end_body()


    def _raw_events(self) -> None:
        r = self.reply
        for index, payload in enumerate(r.events):
            self._event(payload, pause=index > 0)
        if r.done:
            self._event("[DONE]", pause=False)
        self._end_body()


Responder = Callable[[RecordedRequest], Union[Reply, None]]


class FakeOpenAIServer:
    """A scripted OpenAI-compatible server; see the module docstring.

    Replies queued with :meth:`push` are used first (FIFO); when the queue is
    empty, ``responder(request)`` is asked (if set); a ``None`` from it, or no
    responder, gives HTTP 500 "script ran out".
    """

    def __init__(
        self,
        script: Iterable[Reply] | None = None,
        *,
        model: str = "fake-model",
        models: Sequence[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        responder: Responder | None = None,
    ) -> None:
        self.model = model
        self.models: list[str] = list(models) if models else [model]
        if model not in self.models:
            self.models.insert(0, model)
        self.host = host
        self.port = port
        self.responder: Responder | None = responder
        self.requests: list[RecordedRequest] = []  # chat-completion requests only
        self.all_requests: list[RecordedRequest] = []  # everything, in arrival order
        self._queue: deque[Reply] = deque(script or ())
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._stop_event = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        self._stop_event.clear()
        self._httpd = _HTTPServer((self.host, self.port), self)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-openai-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        self._stop_event.set()  # wakes stalls and delays
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:  # idle keep-alive connections would otherwise linger
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if thread is not None:
            thread.join(timeout=2)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def stopping(self) -> bool:
        return self._stop_event.is_set()

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not started")
        return f"http://{self.host}:{self.port}/v1"

    # -- scripting --------------------------------------------------------------------

    def push(self, *replies: Reply) -> None:
        """Queue replies; each chat request consumes the next one."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """How many queued replies have not been used yet."""
        with self._lock:
            return len(self._queue)

    def clear(self) -> None:
        """Drop queued replies and forget recorded requests."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.all_requests.clear()

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least ``n`` chat requests were received; return them all."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < n:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"expected {n} chat request(s), got {len(self.requests)} within {timeout}s")
                self._cond.wait(remaining)
            return list(self.requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            if not self.requests:
                raise AssertionError("the fake OpenAI server has received no chat request")
            return self.requests[-1]

    # -- used by the handler --------------------------------------------------------

    def _record_any(self, request: RecordedRequest) -> None:
        with self._cond:
            self.all_requests.append(request)
            self._cond.notify_all()

    def _record_chat(self, request: RecordedRequest) -> None:
        with self._cond:
            self.all_requests.append(request)
            self.requests.append(request)
            self._cond.notify_all()

    def _next_reply(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            responder = self.responder
        return responder(request) if responder is not None else None

    def _track(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def _untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)
