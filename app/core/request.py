"""The assembled request: every part of what is sent, tagged with where it came from.

The gauge, the /context reports and the context map all read this one object;
``to_chat_request`` (what is actually sent) is a pure function of it, so what is
shown is what was sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import field
from app.dataclass import dataclass
from typing import Any

from app.core.history import Message
from app.core.images import IMAGE_TOKEN_ESTIMATE
from app.core.llm.types import ChatRequest

SYSTEM, TOOLS, MESSAGES = "system", "tools", "messages"


class ContextError(Exception):
    """The request cannot be assembled (e.g. a configured system.md is missing); the message says why."""


# Part kinds, and the group each is shown under in reports and the map.
KIND_GROUPS: dict[str, str] = {
    "section": "System prompt",
    "separator": "System prompt",
    "custom_prompt": "System prompt",
    "git_status": "System prompt",
    "appended": "System prompt",
    "instruction_file": "Instruction files",
    "rules": "Instruction files",
    "truncation_notice": "Instruction files",
    "memory_index": "Memory",
    "recalled_memory": "Memory",
    "skills_listing": "Skills",
    "tool_schema": "Tool schemas",
    "user": "Messages",
    "assistant": "Messages",
    "tool_result": "Tool results",
    "summary": "Summaries",
    "reminder": "Reminders",
    "prelude": "Reminders",
}
GROUP_ORDER = (
    "System prompt",
    "Instruction files",
    "Memory",
    "Skills",
    "Tool schemas",
    "Messages",
    "Tool results",
    "Summaries",
    "Reminders",
)


@dataclass
class RequestPart:
    """One piece of the request: what it adds, where it came from, and what it weighs."""

    block: str  # system | tools | messages
    kind: str  # a key of KIND_GROUPS
    name: str  # what a person calls it: "base prompt", "QWEN.md", "read_file", "user #3"
    source: str  # template, file path, tool name or message position
    text: str  # exactly what this part contributes to the request
    message_index: int | None = None
    status: str = ""  # instruction files: OK / TRUNCATED
    tokens: int = 0
    fixed_tokens: int = 0  # what the text does not show: images, at a fixed estimate each
    part_id: str = ""  # a history message's stable id (app/context/view_edits.py); "" for fixed parts
    edit: str = ""  # what the person did to it: dropped, pinned, edited

    @property
    def group(self) -> str:
        return KIND_GROUPS.get(self.kind, "Other")

    @property
    def chars(self) -> int:
        return len(self.text)


@dataclass
class AssembledRequest:
    """Everything one request sends, part by part, with the model and window it is meant for."""

    parts: list[RequestPart]
    messages: list[Message]
    tools: list[dict[str, Any]]
    model: str
    context_window: int
    token_method: str = "estimate"
    created_at: float = field(default_factory=time.time)
    max_tokens: int | None = None  # the answer's limit, sent on every request

    @property
    def system_text(self) -> str:
        return "".join(p.text for p in self.parts if p.block == SYSTEM)

    def to_chat_request(self) -> ChatRequest:
        return ChatRequest(system=self.system_text, messages=list(self.messages), tools=list(self.tools), max_tokens=self.max_tokens)

    @property
    def total_tokens(self) -> int:
        return sum(p.tokens for p in self.parts)

    def tokens_by_group(self) -> dict[str, int]:
        totals = {group: 0 for group in GROUP_ORDER}
        for part in self.parts:
            totals[part.group] = totals.get(part.group, 0) + part.tokens
        return totals

    def parts_of(self, *kinds: str) -> list[RequestPart]:
        return [p for p in self.parts if p.kind in kinds]


def message_text(message: Message) -> str:
    """The text of a message as it weighs in the request (content, tool-call arguments, image placeholders)."""
    pieces = [message.text_with_placeholders()]
    for call in message.tool_calls:
        pieces.append(f"{call.name}({call.arguments})")
    return "\n".join(p for p in pieces if p)


def image_tokens(message: Message) -> int:
    return IMAGE_TOKEN_ESTIMATE * len(message.images)


def message_tokens(count: Callable[[str], int], message: Message) -> int:
    """A message's weight: its text counted, its images estimated."""
    return count(message_text(message)) + image_tokens(message)


SKILLS_MARKERS = ("<available_skills>", "The skills available to the skill tool have changed.")


def message_kind(message: Message) -> str:
    if message.role == "tool":
        return "tool_result"
    if message.role == "user" and message.content.startswith("<system-reminder>") and any(m in message.content for m in SKILLS_MARKERS):
        return "skills_listing"
    if message.role == "user" and message.content.startswith("<system-reminder>\n## Relevant memory"):
        return "recalled_memory"
    if message.role == "user" and message.content.lstrip().startswith("<state_snapshot>"):
        return "summary"
    if message.role == "user" and message.content.lstrip().startswith("<system-reminder>"):
        return "reminder"
    return "assistant" if message.role == "assistant" else "user"


def message_parts(messages: Iterable[Message], *, first_index: int = 0) -> list[RequestPart]:
    """One part per message; ``first_index`` is the position of the first one in the request."""
    parts: list[RequestPart] = []
    for index, message in enumerate(messages, start=first_index):
        kind = message_kind(message)
        name = f"{message.name or 'tool'} result" if kind == "tool_result" else kind
        parts.append(
            RequestPart(
                block=MESSAGES,
                kind=kind,
                name=name,
                source=f"message {index + 1}",
                text=message_text(message),
                message_index=index,
                fixed_tokens=image_tokens(message),
            )
        )
    return parts


MCP_PREFIX = "mcp__"
BUILTIN_TOOLS = "built-in"
DEFERRED_LISTING = "tool_search (deferred MCP tools)"


def tool_server(name: str) -> str:
    """Where a tool's schema comes from: built-in, the MCP server in its ``mcp__<server>__<tool>`` name, or the deferred listing."""
    if name.startswith(MCP_PREFIX) and "__" in name[len(MCP_PREFIX):]:
        return "MCP " + name[len(MCP_PREFIX):].split("__", 1)[0]
    if name == "tool_search":
        return DEFERRED_LISTING
    return BUILTIN_TOOLS


def tool_schema_parts(tools: Iterable[dict[str, Any]]) -> list[RequestPart]:
    parts = []
    for schema in tools:
        name = schema.get("function", {}).get("name", "?")
        text = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
        parts.append(RequestPart(block=TOOLS, kind="tool_schema", name=name, source=f"tool {name}", text=text))
    return parts
