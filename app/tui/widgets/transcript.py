"""The conversation as data: what the person has seen, independent of mounted widgets.

Widgets are views over a bounded window of these entries; a 2,000-message session
keeps 2,000 entries here and only a few dozen widgets on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from app.dataclass import dataclass

from app.core.history import Message, ToolCall
from app.core.session.lazy_text import is_unread


@dataclass
class Entry:
    """One thing the person sees in the conversation: a message, a tool call with its output, a notice."""

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
    # A resumed tool result whose text is still in the session file (app/core/session/lazy_text.py):
    # its output is read when first shown, not to build the transcript.
    output_of: Message | None = field(default=None, repr=False, compare=False)

    def shown_title(self) -> str:
        if self.pending_title is not None:
            self.title, self.pending_title = self.pending_title(), None
        return self.title

    def shown_output(self) -> str:
        if self.output_of is not None:
            self.output, self.output_of = self.output_of.content, None
        return self.output


@dataclass
class Transcript:
    """Every entry of the conversation, mounted or not."""

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
    """Rebuild what the person saw from a resumed history.

    A 500 MB session has 105,000 messages: a text is tested with ``isspace`` (``strip`` copied each
    answer to see if anything was left) and entries are built positionally (0.26 -> 0.15 s of CPU).
    """
    entries: list[Entry] = []
    append = entries.append
    by_call: dict[str, Entry] = {}
    for message in messages:
        role = message.role
        if role == "tool":
            entry = by_call.get(message.tool_call_id or "")
            if entry is not None:
                if is_unread(message):
                    entry.output_of = message
                else:
                    entry.output = message.content
                entry.status = "error" if message.is_error else "ok"
        elif role == "assistant":
            content, reasoning = message.content, message.reasoning
            if (content and not content.isspace()) or (reasoning and not reasoning.isspace()):
                append(Entry("assistant", content, reasoning))
            for call in message.tool_calls:
                name = call.name
                entry = Entry("tool", "", "", call.id, name, name, "waiting")
                if summarize:
                    entry.pending_title = _title_of(summarize, call)
                by_call[call.id] = entry
                append(entry)
        elif role == "user":
            append(Entry("user", message.content))
    return entries


def _title_of(summarize: Callable[[ToolCall], str], call: ToolCall) -> Callable[[], str]:
    return lambda: summarize(call)
