"""Turning the core's events for one turn into what the person sees."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

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
from app.tui.messages import UNSET, MapChanged, MapReported, MapStreaming, StatusChanged, UsageChanged
from app.tui.widgets.conversation import Conversation
from app.tui.widgets.message_views import AssistantView
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    from app.core.tools.registry import ToolRegistry
    from app.tui.host import TuiHost

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


class CompactionEvents(Protocol):
    """Who shows the window filling up: the warn notice, the countdown, compaction itself."""

    async def on_compaction_event(self, event: Event, conversation: Conversation) -> None: ...


class Approvals(Protocol):
    """Who asks the person about a tool call, and closes the question when the turn is cancelled."""

    def ask(self, event: ApprovalNeeded, entry: Entry | None) -> None: ...

    def close(self) -> None: ...


def gate_tokens(host: TuiHost, tracked: int) -> UsageChanged:
    """The gauge before an answer arrives: the server's last count plus what was added since."""
    agent = host.runtime.agent if host.runtime else None
    compactor = agent.compactor if agent else None
    tokens = compactor.gate_tokens(tracked) if compactor else tracked
    source = "reported" if compactor and compactor.reported_prompt else "estimate"
    return UsageChanged(tokens, source=source)


class TurnView:
    """Turns the core's events into what the person sees, for one turn.

    Its collaborators are passed in (the compaction and approval controllers, typed by the
    Protocols above), so this module imports none of them and none of them imports the app.
    """

    def __init__(self, host: TuiHost, conversation: Conversation, *, compaction: CompactionEvents, approvals: Approvals) -> None:
        self.host = host
        self.conversation = conversation
        self.compaction = compaction
        self.approvals = approvals
        self.current: AssistantView | None = None
        self.tools: dict[str, Entry] = {}
        self.streamed = ""
        self._map_updated = 0.0
        # The state this view last put on the status line: a stream's every chunk need not say it again.
        self._last_state: str | None = None

    def _state(self, state: str) -> None:
        if state != self._last_state:
            self._last_state = state
            self.host.post_message(StatusChanged(state=state))

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
            self.host.post_message(MapStreaming(estimate_tokens(self.streamed)))

    async def handle(self, event: Event) -> None:
        host = self.host
        if isinstance(event, ContextAssembled) and event.request is not None:
            self.streamed = ""
            host.post_message(MapChanged(event.request, sent=True))
            host.post_message(gate_tokens(host, event.request.total_tokens))
        elif isinstance(event, (ContextWarning, CompactionPending, CompactionStarted, CompactionFinished, MicroCompacted)):
            self._last_state = None  # the compaction controller writes the status line meanwhile
            await self.compaction.on_compaction_event(event, self.conversation)
        elif isinstance(event, RequestStarted):
            self._state("waiting for the model…")
        elif isinstance(event, TextDelta):
            self._state("answering…")
            self._follow_stream(event.text)
            await (await self._reply_view()).write(event.text)
        elif isinstance(event, ReasoningDelta):
            self._state("thinking…")
            self._follow_stream(event.text)
            (await self._reply_view()).add_reasoning(event.text)
        elif isinstance(event, StreamReset):
            if self.current is not None:
                await self.current.reset()
        elif isinstance(event, Retrying):
            self._state(f"retrying in {event.delay:.0f} s ({event.attempt}/{event.max_attempts})")
            host.notify(f"{event.reason} Retrying in {event.delay:.1f} s.", severity="warning")
        elif isinstance(event, AssistantMessage):
            await self._end_reply()
            registry = host.runtime.registry if host.runtime else None
            for call in event.message.tool_calls:
                entry = self._tool(call)
                entry.title = tool_title(registry, call)
                entry.status = "waiting"
                await self.conversation.add(entry)
        elif isinstance(event, ApprovalNeeded):
            entry = self._tool(event.call)
            entry.title = event.summary
            self.conversation.refresh_tool(entry)
            self._last_state = None  # so does the approval question
            self.approvals.ask(event, entry)
        elif isinstance(event, ToolCallStarted):
            entry = self._tool(event.call)
            entry.status, entry.title = "running", event.summary
            self.conversation.refresh_tool(entry)
            self._state(f"running {event.call.name}…")
        elif isinstance(event, ToolCallFinished):
            entry = self._tool(event.call)
            entry.status, entry.title, entry.output = event.status, event.summary, event.output
            self.conversation.refresh_tool(entry)
            self._state("waiting for the model…")
        elif isinstance(event, UsageUpdated):
            host.post_message(MapReported(event.last.prompt_tokens or None, cached=event.last.cached_tokens))
            if event.last.prompt_tokens:
                host.post_message(UsageChanged(event.last.prompt_tokens + event.last.completion_tokens, source="reported"))
            used = event.last.prompt_tokens + event.last.completion_tokens
            host.post_message(StatusChanged(used_tokens=used or UNSET, context_window=event.context_window or UNSET))
        elif isinstance(event, Notice):
            await self.conversation.add(Entry(kind="notice" if event.level != "error" else "error", text=event.text))
            host.notify(event.text, severity="error" if event.level == "error" else "warning" if event.level == "warning" else "information")
        elif isinstance(event, TurnFinished):
            await self._end_reply()
            host.post_message(MapStreaming(0))
            self._state("idle")
        elif isinstance(event, TurnFailed):
            await self._end_reply()
            host.post_message(MapStreaming(0))
            await self.conversation.add(Entry(kind="error", text=event.message))
            host.notify(event.message, severity="error", timeout=10)
            if event.error_kind not in ("hook", "budget"):  # a blocked prompt or a spent budget would fail again
                await self.conversation.add(Entry(kind="notice", text="ctrl+y retries; your message is kept."))
            self._state("error")
        elif isinstance(event, TurnCancelled):
            await self._end_reply()
            host.post_message(MapStreaming(0))
            self.approvals.close()
            for entry in self.tools.values():
                if entry.status in ("waiting", "running"):
                    entry.status = "cancelled"
                    self.conversation.refresh_tool(entry)
            await self.conversation.add(Entry(kind="notice", text="Cancelled. Your message is kept in the session."))
            self._state("idle")
