"""Turning the core's events for one turn into what the person sees."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from app.core.events import (
    ApprovalNeeded,
    AssistantMessage,
    CompactionFinished,
    CompactionPending,
    CompactionStarted,
    ContextWarning,
    MicroCompacted,
    ContextAssembled,
    Event,
    Notice,
    ReasoningDelta,
    RequestStarted,
    Retrying,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
    TurnFinished,
    UsageUpdated,
)
from app.core.history import ToolCall
from app.core.tokens import estimate_tokens
from app.tui.widgets.conversation import Conversation
from app.tui.widgets.message_views import AssistantView
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    from app.core.tools.registry import ToolRegistry
    from app.tui.app import AgentctxApp

# The map follows a streaming reply, but redrawing it on every chunk would cost more than it shows.
MAP_REFRESH_SECONDS = 0.25


def tool_title(registry: ToolRegistry | None, call: ToolCall) -> str:
    """The one-line summary of a tool call, or its name when the tool cannot say."""
    tool = registry.get(call.name) if registry else None
    if tool is None:
        return call.name
    try:
        return tool.summarize(call.parsed_arguments())
    except Exception:
        return call.name


class TurnView:
    """Turns the core's events into what the person sees, for one turn."""

    def __init__(self, app: AgentctxApp, conversation: Conversation) -> None:
        self.app = app
        self.conversation = conversation
        self.current: AssistantView | None = None
        self.tools: dict[str, Entry] = {}
        self.streamed = ""
        self._map_updated = 0.0

    async def _reply_view(self) -> AssistantView:
        if self.current is None:
            view = await self.conversation.add(Entry(kind="assistant", streaming=True))
            assert isinstance(view, AssistantView)
            self.current = view
        return self.current

    async def _end_reply(self) -> None:
        if self.current is not None:
            await self.current.finish()
            self.current = None

    def _tool(self, call: ToolCall) -> Entry:
        return self.tools.setdefault(call.id, Entry(kind="tool", call_id=call.id, tool_name=call.name, title=call.name))

    def _follow_stream(self, text: str) -> None:
        """Let the map grow with the reply, at most a few times a second."""
        self.streamed += text
        now = time.monotonic()
        if now - self._map_updated >= MAP_REFRESH_SECONDS:
            self._map_updated = now
            self.app.context_map.set_streaming(estimate_tokens(self.streamed))

    async def handle(self, event: Event) -> None:
        app, status = self.app, self.app.status
        if isinstance(event, ContextAssembled) and event.request is not None:
            self.streamed = ""
            app.context_map.show_request(event.request)
            app.gauge.show_recall(event.request)
            app.show_gate_tokens(event.request.total_tokens)
        elif isinstance(event, (ContextWarning, CompactionPending, CompactionStarted, CompactionFinished, MicroCompacted)):
            await app.on_compaction_event(event, self.conversation)
        elif isinstance(event, RequestStarted):
            status.state = "waiting for the model…"
        elif isinstance(event, TextDelta):
            status.state = "answering…"
            self._follow_stream(event.text)
            await (await self._reply_view()).write(event.text)
        elif isinstance(event, ReasoningDelta):
            status.state = "thinking…"
            self._follow_stream(event.text)
            (await self._reply_view()).add_reasoning(event.text)
        elif isinstance(event, StreamReset):
            if self.current is not None:
                await self.current.reset()
        elif isinstance(event, Retrying):
            status.state = f"retrying in {event.delay:.0f} s ({event.attempt}/{event.max_attempts})"
            app.notify(f"{event.reason} Retrying in {event.delay:.1f} s.", severity="warning")
        elif isinstance(event, AssistantMessage):
            await self._end_reply()
            registry = app.runtime.registry if app.runtime else None
            for call in event.message.tool_calls:
                entry = self._tool(call)
                entry.title = tool_title(registry, call)
                entry.status = "waiting"
                await self.conversation.add(entry)
        elif isinstance(event, ApprovalNeeded):
            entry = self._tool(event.call)
            entry.title = event.summary
            self.conversation.refresh_tool(entry)
            app.ask_approval(event, entry)
        elif isinstance(event, ToolCallStarted):
            entry = self._tool(event.call)
            entry.status, entry.title = "running", event.summary
            self.conversation.refresh_tool(entry)
            status.state = f"running {event.call.name}…"
        elif isinstance(event, ToolCallFinished):
            entry = self._tool(event.call)
            entry.status, entry.title, entry.output = event.status, event.summary, event.output
            self.conversation.refresh_tool(entry)
            status.state = "waiting for the model…"
        elif isinstance(event, UsageUpdated):
            app.context_map.set_reported(event.last.prompt_tokens or None)
            if event.last.prompt_tokens:
                app.gauge.set_usage(event.last.prompt_tokens + event.last.completion_tokens, source="reported")
            used = event.last.prompt_tokens + event.last.completion_tokens
            if used:
                status.used_tokens = used
            if event.context_window:
                status.context_window = event.context_window
        elif isinstance(event, Notice):
            await self.conversation.add(Entry(kind="notice" if event.level != "error" else "error", text=event.text))
            app.notify(event.text, severity="error" if event.level == "error" else "warning" if event.level == "warning" else "information")
        elif isinstance(event, TurnFinished):
            await self._end_reply()
            app.context_map.set_streaming(0)
            status.state = "idle"
        elif isinstance(event, TurnFailed):
            await self._end_reply()
            app.context_map.set_streaming(0)
            await self.conversation.add(Entry(kind="error", text=event.message))
            app.notify(event.message, severity="error", timeout=10)
            if event.error_kind not in ("hook", "budget"):  # a blocked prompt or a spent budget would fail again
                await self.conversation.add(Entry(kind="notice", text="ctrl+y retries; your message is kept."))
            status.state = "error"
        elif isinstance(event, TurnCancelled):
            await self._end_reply()
            app.context_map.set_streaming(0)
            app.close_approval()
            for entry in self.tools.values():
                if entry.status in ("waiting", "running"):
                    entry.status = "cancelled"
                    self.conversation.refresh_tool(entry)
            await self.conversation.add(Entry(kind="notice", text="Cancelled. Your message is kept in the session."))
            status.state = "idle"
