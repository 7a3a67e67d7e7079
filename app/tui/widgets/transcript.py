"""The conversation as data: what the person has seen, independent of mounted widgets.

Widgets are views over a bounded window of these entries; a 2,000-message session
keeps 2,000 entries here and only a few dozen widgets on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from app.dataclass import dataclass

from app.core.history import Message, ToolCall


@dataclass
class Entry:
    """One thing the person saw in the conversation: a prompt, an answer, a tool call, a notice or an error."""

    kind: str  # user | assistant | tool | notice | error
    text: str = ""
    reasoning: str = ""
    call_id: str = ""
    tool_name: str = ""
    title: str = ""
    status: str = ""  # tool: waiting | running | ok | error | rejected | cancelled
    output: str = ""
    streaming: bool = False
    # A resumed tool call whose title is worked out when it is first shown: a 500 MB session has
    # 35,000 of them and a few dozen on screen (summarizing them all took 0.4 s before the screen).
    pending_title: Callable[[], str] | None = field(default=None, repr=False, compare=False)

    def shown_title(self) -> str:
        if self.pending_title is not None:
            self.title, self.pending_title = self.pending_title(), None
        return self.title


@dataclass
class Transcript:
    """The whole conversation as the person saw it, in order; widgets show a window of it."""

    entries: list[Entry] = field(default_factory=list)

    def add(self, entry: Entry) -> int:
        self.entries.append(entry)
        return len(self.entries) - 1

    def tool_entry(self, call_id: str) -> Entry | None:
        for entry in reversed(self.entries):
            if entry.kind == "tool" and entry.call_id == call_id:
                return entry
        return None

    def last_answer(self) -> str:
        for entry in reversed(self.entries):
            if entry.kind == "assistant" and entry.text.strip():
                return entry.text
        return ""


def entries_from_history(messages: list[Message], summarize=None) -> list[Entry]:  # type: ignore[no-untyped-def]
    """Rebuild what the person saw from a resumed history."""
    entries: list[Entry] = []
    by_call: dict[str, Entry] = {}
    for message in messages:
        if message.role == "user":
            entries.append(Entry(kind="user", text=message.content))
        elif message.role == "assistant":
            if message.content.strip() or message.reasoning.strip():
                entries.append(Entry(kind="assistant", text=message.content, reasoning=message.reasoning))
            for call in message.tool_calls:
                entry = Entry(kind="tool", call_id=call.id, tool_name=call.name, title=call.name, status="waiting")
                if summarize:
                    entry.pending_title = _title_of(summarize, call)
                by_call[call.id] = entry
                entries.append(entry)
        elif message.role == "tool":
            entry = by_call.get(message.tool_call_id or "")
            if entry is not None:
                entry.output = message.content
                entry.status = "error" if message.is_error else "ok"
    return entries


def _title_of(summarize: Callable[[ToolCall], str], call: ToolCall) -> Callable[[], str]:
    return lambda: summarize(call)
