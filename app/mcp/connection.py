"""One MCP server's connection: started in the background, listed, called, stopped.

The SDK's ``Client`` is an async context manager whose task groups must be entered
and left by one task, so each connection owns a task that holds it open until
``stop()``; tool calls from the agent's task go through the open session. A
server that fails to start, hangs past the connect timeout, or dies is marked
``failed`` with the tail of its stderr, and only its own tools are affected.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from app.dataclass import dataclass
from pathlib import Path
from typing import IO, Any

from app.mcp.config import HTTP, SSE, STDIO, ServerConfig

PENDING, CONNECTING, CONNECTED, FAILED, STOPPED = "pending", "connecting", "connected", "failed", "stopped"
STDERR_TAIL_CHARS = 2_000
# An idle server is asked for its tool listing this often, so /mcp shows one that died between calls.
HEALTH_INTERVAL = 30.0
PING_TIMEOUT = 30.0
# What the model reads of a failed server's stderr (people see more in /mcp).
MODEL_TAIL_LINES = 10
# Listing pages followed at most (a server that always returns a cursor must not loop forever).
MAX_LIST_PAGES = 50
LAUNCHER = Path(__file__).with_name("launcher.py")


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False  # the server's readOnlyHint (a hint from the server, not trusted for permissions)


@dataclass(frozen=True)
class RemotePrompt:
    """A prompt template the server offers; it becomes the slash command /mcp__<server>__<prompt>."""

    name: str
    description: str
    arguments: tuple[tuple[str, bool], ...] = ()  # (name, required), in the server's order


@dataclass(frozen=True)
class RemoteResource:
    """A resource the server lists, by URI."""

    uri: str
    name: str
    mime_type: str = ""


@dataclass(frozen=True)
class CallOutcome:
    """What a tool call on the server gave back: its text, whether it failed, and any images."""

    text: str
    is_error: bool
    images: tuple[tuple[str, str], ...] = ()  # (mime, base64 data)


class NotConnected(Exception):
    """The server is not connected; the message says its state and how to reconnect."""


def _import_sdk() -> Any:
    """The SDK's client (imported off the event loop: it takes most of a second)."""
    import anyio  # noqa: F401
    import httpx2  # noqa: F401
    import mcp.client.client  # noqa: F401
    import mcp.client.sse  # noqa: F401
    import mcp.client.stdio  # noqa: F401
    import mcp.client.streamable_http  # noqa: F401

    return mcp.client.client


class ServerConnection:
    def __init__(
        self,
        config: ServerConfig,
        *,
        connect_timeout: float,
        on_change: Callable[[ServerConnection], None] | None = None,
        health_interval: float = HEALTH_INTERVAL,
    ) -> None:
        self.config = config
        self.connect_timeout = connect_timeout
        self.health_interval = health_interval
        self._in_flight = 0
        self.on_change = on_change
        self.status = PENDING
        self.error = ""
        self.tools: list[RemoteTool] = []
        self.prompts: list[RemotePrompt] = []
        self.resources: list[RemoteResource] = []
        self.server_name = ""
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._settled: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._stderr: IO[str] | None = None
        self._stderr_text = ""  # the tail kept when the stderr file is closed
        self._timed_out = False
        self._http_status = 0

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def settled(self) -> bool:
        return self.status in (CONNECTED, FAILED, STOPPED)

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting in the background (on the running loop); returns at once."""
        if self._task is not None and not self._task.done():
            return
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        self.status, self.error, self.tools = CONNECTING, "", []
        self._timed_out = False
        self._http_status = 0
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp-{self.name}")
        self._changed()

    async def wait_settled(self, timeout: float) -> bool:
        """Whether the server is connected or failed within ``timeout`` seconds."""
        if self._settled is None:
            return self.settled
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    async def stop(self) -> None:
        """Close the session; the SDK stops a stdio server's whole process group (bounded waits)."""
        task = self._task
        if task is None:
            return
        if self._stop is not None:
            self._stop.set()
        if self.status != CONNECTED:
            task.cancel()  # still starting: do not wait for the handshake to finish or time out
        try:
            # The SDK's own shutdown is bounded (about 4 s for a process that ignores its stdin closing).
            await asyncio.wait_for(asyncio.shield(task), 10)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            task.cancel()
        except Exception:
            pass
        self._task = None
        if self.status != FAILED:
            self.status = STOPPED
        self._client = None
        self._close_stderr()

    async def restart(self) -> None:
        await self.stop()
        self.start()

    async def _run(self) -> None:
        import contextlib

        # Not a cancel scope around entering the Client: its task groups must be left in the
        # order they were entered. A timer cancels the whole task instead.
        timer = asyncio.get_running_loop().call_later(self.connect_timeout, self._connect_timed_out)
        try:
            sdk = await asyncio.to_thread(_import_sdk)
            async with contextlib.AsyncExitStack() as stack:
                transport = await self._transport(stack)
                client = await stack.enter_async_context(sdk.Client(transport, read_timeout_seconds=self.config.timeout))
                self.tools = await self._list(client)
                await self._list_extras(client)
                timer.cancel()
                info = client.server_info
                self.server_name = getattr(info, "name", "") or ""
                self._client = client
                self.status = CONNECTED
                self._settle()
                await self._watch(client)
                self._client = None
        except asyncio.CancelledError:
            self._client = None
            if not self._timed_out:
                raise
        except BaseException as exc:  # an ExceptionGroup from the SDK's task groups, OSError, a protocol error
            self._client = None
            if self.status != STOPPED:
                reason = _describe(exc, self.connect_timeout)
                if reason == "Connection closed" and self.config.transport == STDIO and self.status == CONNECTING:
                    reason = "the server process exited or closed its output before it was ready"
                if self._http_status:
                    hint = " (check its 'headers')" if self._http_status in (401, 403) else ""
                    reason = f"{reason}: HTTP {self._http_status} from {self.config.url}{hint}"
                self._fail(reason)
        finally:
            timer.cancel()
            self._settle()

    async def _watch(self, client: Any) -> None:
        """Hold the session open until stop(); a request between calls notices a server that died while idle."""
        assert self._stop is not None
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), self.health_interval)
                return
            except asyncio.TimeoutError:
                pass
            if self._in_flight:
                continue  # a long call is its own proof of life (or will fail on its own)
            import anyio

            try:
                # Not ping: the 2026-07-28 protocol removed it. A fresh first page of the tool
                # listing is a request every server answers.
                with anyio.fail_after(PING_TIMEOUT):
                    await client.list_tools(cache_mode="refresh")
            except Exception as exc:
                self._fail(f"stopped answering while idle ({_describe(exc, PING_TIMEOUT)})")
                return

    def _connect_timed_out(self) -> None:
        if self.status == CONNECTING and self._task is not None and not self._task.done():
            self._timed_out = True
            # Settled now: the SDK's bounded shutdown of the process (seconds) goes on in the background.
            self._fail(f"no answer within {self.connect_timeout:g} s (mcp.connect_timeout)")
            self._settle()
            self._task.cancel()

    async def _transport(self, stack: Any) -> Any:
        """The SDK transport for this server (an async context manager the Client enters)."""
        config = self.config
        if config.transport == STDIO:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            self._close_stderr()
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            command, args = config.command, list(config.args)
            if sys.platform.startswith("linux"):
                command, args = sys.executable, ["-I", "-S", str(LAUNCHER), str(os.getpid()), command, *args]
            env = {key: os.path.expandvars(value) for key, value in config.env.items()}  # $VAR as Qwen Code expands it
            params = StdioServerParameters(command=command, args=args, env=env or None, cwd=config.cwd)
            return stdio_client(params, errlog=self._stderr)
        import httpx2

        headers = {key: os.path.expandvars(value) for key, value in config.headers.items()}
        if config.transport == HTTP:
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0), event_hooks={"response": [self._saw_response]})
            )
            return streamable_http_client(config.url, http_client=http)
        assert config.transport == SSE
        from mcp.client.sse import sse_client

        return sse_client(config.url, headers=headers, timeout=30.0)

    async def _saw_response(self, response: Any) -> None:
        # The SDK reports any HTTP error as "Server returned an error response"; the status says what to fix.
        if response.status_code >= 400:
            self._http_status = response.status_code

    async def _list(self, client: Any) -> list[RemoteTool]:
        tools: list[RemoteTool] = []
        cursor = None
        for _ in range(MAX_LIST_PAGES):
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                annotations = getattr(tool, "annotations", None)
                tools.append(
                    RemoteTool(
                        name=tool.name,
                        description=tool.description or "",
                        input_schema=dict(tool.input_schema or {"type": "object", "properties": {}}),
                        read_only=bool(getattr(annotations, "read_only_hint", False)),
                    )
                )
            cursor = page.next_cursor
            if not cursor:
                break
        return [tool for tool in tools if self.config.offers(tool.name)]

    async def _list_extras(self, client: Any) -> None:
        """Prompts and resources, when the server offers them (a failure here leaves the tools usable)."""
        capabilities = client.server_capabilities
        self.prompts, self.resources = [], []
        try:
            if getattr(capabilities, "prompts", None) is not None:
                listing = await client.list_prompts()
                self.prompts = [
                    RemotePrompt(
                        name=prompt.name,
                        description=prompt.description or "",
                        arguments=tuple((arg.name, bool(arg.required)) for arg in (prompt.arguments or [])),
                    )
                    for prompt in listing.prompts
                ]
            if getattr(capabilities, "resources", None) is not None:
                listing = await client.list_resources()
                self.resources = [RemoteResource(uri=str(r.uri), name=r.name, mime_type=r.mime_type or "") for r in listing.resources]
        except Exception:
            pass

    # -- calls ------------------------------------------------------------------------------

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> str:
        """The prompt's messages as one text (what the person sends as their request)."""
        client = self._require()
        try:
            result = await client.get_prompt(name, arguments)
        except Exception as exc:
            raise NotConnected(f"MCP server '{self.name}' could not give the prompt {name}: {_describe(exc, self.config.timeout)}") from None
        texts = []
        for message in result.messages:
            content = message.content
            texts.append(getattr(content, "text", None) or f"[{getattr(content, 'type', 'content')} from the prompt]")
        return "\n\n".join(t for t in texts if t)

    async def read_resource(self, uri: str) -> str:
        client = self._require()
        try:
            result = await client.read_resource(uri)
        except Exception as exc:
            raise NotConnected(f"MCP server '{self.name}' could not read {uri}: {_describe(exc, self.config.timeout)}") from None
        texts = []
        for item in result.contents:
            text = getattr(item, "text", None)
            texts.append(text if text is not None else f"[binary resource {item.uri} ({getattr(item, 'mime_type', '') or 'unknown type'})]")
        return "\n".join(texts)

    def _require(self) -> Any:
        if self._client is None or self.status != CONNECTED:
            raise NotConnected(self.describe_unavailable())
        return self._client

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        client = self._client
        if client is None or self.status != CONNECTED:
            raise NotConnected(self.describe_unavailable())
        self._in_flight += 1
        try:
            result = await client.call_tool(tool, arguments, read_timeout_seconds=self.config.timeout)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            if self._task is None or self._task.done() or _is_closed(exc):
                self._fail(_describe(exc, self.config.timeout))
                raise NotConnected(self.describe_unavailable()) from None
            reason = _describe(exc, self.config.timeout)
            if "timed out" in reason:
                reason += f" (after {self.config.timeout:g} s; the server's 'timeout' setting, in ms)"
            return CallOutcome(text=f"MCP server '{self.name}' failed the call: {reason}", is_error=True)
        finally:
            self._in_flight -= 1
        return _outcome(result)

    def describe_unavailable(self) -> str:
        tail = self.stderr_tail()
        if self.status == FAILED:
            text = f"MCP server '{self.name}' failed: {self.error or 'unknown error'}."
        else:
            text = f"MCP server '{self.name}' is {self.status}."
        text += f" Fix it, then /mcp reconnect {self.name} (or restart agentctx-tui)."
        if tail:
            text += "\nIts stderr ended with:\n" + "\n".join(tail.splitlines()[-MODEL_TAIL_LINES:])
        return text

    # -- what is shown ----------------------------------------------------------------------

    def stderr_tail(self, chars: int = STDERR_TAIL_CHARS) -> str:
        handle = self._stderr
        if handle is None or handle.closed:
            return self._stderr_text
        try:
            handle.flush()
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - chars * 4))
            text = handle.read()
        except (OSError, ValueError):
            return ""
        return text[-chars:].strip()

    def _close_stderr(self) -> None:
        if self._stderr is not None and not self._stderr.closed:
            self._stderr_text = self.stderr_tail()
            self._stderr.close()
        self._stderr = None

    def _fail(self, message: str) -> None:
        self.status, self.error = FAILED, message
        self._client = None
        self._changed()

    def _settle(self) -> None:
        if self._settled is not None and not self._settled.is_set():
            self._settled.set()
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception:
                pass  # a listener's bug must not take the connection down


def _outcome(result: Any) -> CallOutcome:
    texts: list[str] = []
    images: list[tuple[str, str]] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            images.append((block.mime_type, block.data))
            texts.append(f"[image: {block.mime_type}]")
        elif kind == "audio":
            texts.append(f"[audio: {block.mime_type}]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            texts.append(text if text is not None else f"[resource: {resource.uri} ({getattr(resource, 'mime_type', '') or 'binary'})]")
        elif kind == "resource_link":
            texts.append(f"[resource: {block.uri}]")
    structured = getattr(result, "structured_content", None)
    if not texts and structured is not None:
        import json

        texts.append(json.dumps(structured, ensure_ascii=False))
    return CallOutcome(text="\n".join(texts), is_error=bool(getattr(result, "is_error", False)), images=tuple(images))


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _is_closed(exc: BaseException) -> bool:
    text = " ".join(f"{type(e).__name__} {e}" for e in _leaves(exc)).lower()
    return any(word in text for word in ("closed", "broken", "endofstream", "connection"))


def _describe(exc: BaseException, timeout: float) -> str:
    leaves = _leaves(exc)
    leaf = next((e for e in leaves if not isinstance(e, asyncio.CancelledError)), leaves[0])
    if isinstance(leaf, TimeoutError) or type(leaf).__name__ in ("TimeoutError", "ReadTimeout", "ConnectTimeout"):
        return f"no answer within {timeout:g} s"
    if isinstance(leaf, FileNotFoundError):
        return f"command not found ({leaf.filename or leaf})"
    text = str(leaf).strip() or type(leaf).__name__
    return text.splitlines()[0][:300]
