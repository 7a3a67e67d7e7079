"""Data that crosses the boundary between the agent and a model provider."""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass
from typing import Any

from app.core.history import Message, Usage, wire_messages


@dataclass
class ChatRequest:
    """One request: the system prompt, the conversation and the tool declarations."""

    system: str
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    model: str | None = None  # None: the provider's configured model
    max_tokens: int | None = None
    temperature: float | None = None
    response_format: dict[str, Any] | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)

    def wire_messages(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.system:
            out.append({"role": "system", "content": self.system})
        out.extend(wire_messages(self.messages))
        return out


# Pieces of a streamed reply, in the order the server sends them.


@dataclass
class TextPiece:
    """A piece of the answer's text."""

    text: str


@dataclass
class ReasoningPiece:
    """A piece of a thinking model's reasoning, kept apart from the answer."""

    text: str


@dataclass
class ToolCallPiece:
    """A fragment of a tool call; only the first fragment of a call has id and name.

    ``index`` is None when the server sent none (some send each call whole, with its own id).
    """

    index: int | None
    id: str | None
    name: str | None
    arguments: str


@dataclass
class UsagePiece:
    """The token usage the server reported for the request."""

    usage: Usage


@dataclass
class FinishPiece:
    """Why the server ended the answer (``stop``, ``length``, ``tool_calls``...)."""

    reason: str | None


@dataclass
class InterruptedPiece:
    """The stream ended without ``[DONE]`` and without a finish reason, after part of the answer was sent."""


@dataclass
class RetryPiece:
    """The request failed in a way worth retrying; the stream restarts after ``delay``.

    ``discard_partial`` is set when pieces of the failed attempt were already yielded.
    """

    attempt: int
    max_attempts: int
    delay: float
    reason: str
    discard_partial: bool


StreamPiece = TextPiece | ReasoningPiece | ToolCallPiece | UsagePiece | FinishPiece | InterruptedPiece | RetryPiece


@dataclass
class Completion:
    """A whole (non-streamed or reassembled) reply."""

    message: Message
    usage: Usage | None
    finish_reason: str | None
    # The stream stopped mid-answer without saying it was finished: the message is what arrived.
    interrupted: bool = False
