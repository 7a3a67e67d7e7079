"""Reassembling streamed pieces into one assistant message."""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass

from app.core.ids import random_hex
from app.core.history import Message, ToolCall, Usage
from app.core.llm.types import FinishPiece, InterruptedPiece, ReasoningPiece, StreamPiece, TextPiece, ToolCallPiece, UsagePiece


@dataclass
class _PendingCall:
    """One tool call while its fragments are still arriving."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class ReplyAssembler:
    """Collects the pieces of one streamed reply; tool calls are keyed by their index."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _PendingCall] = field(default_factory=dict)
    usage: Usage | None = None
    finish_reason: str | None = None
    interrupted: bool = False

    def add(self, piece: StreamPiece) -> None:
        if isinstance(piece, TextPiece):
            self.text.append(piece.text)
        elif isinstance(piece, ReasoningPiece):
            self.reasoning.append(piece.text)
        elif isinstance(piece, ToolCallPiece):
            pending = self.calls.setdefault(self._key(piece), _PendingCall())
            if piece.id:
                pending.id = piece.id
            if piece.name and not pending.name:
                pending.name = piece.name
            pending.arguments.append(piece.arguments)
        elif isinstance(piece, UsagePiece):
            self.usage = piece.usage
        elif isinstance(piece, FinishPiece):
            self.finish_reason = piece.reason or self.finish_reason
        elif isinstance(piece, InterruptedPiece):
            self.interrupted = True

    def _key(self, piece: ToolCallPiece) -> int:
        """The call a fragment belongs to: its index; without one, a new call when it brings an id
        the last call does not have (never merged into it), else the last call (a continuation)."""
        if piece.index is not None:
            return piece.index
        last = max(self.calls, default=None)
        if last is None:
            return 0
        if piece.id and self.calls[last].id and piece.id != self.calls[last].id:
            return last + 1
        return last

    def reset(self) -> None:
        """Forget a partial attempt (the stream is being retried)."""
        self.text.clear()
        self.reasoning.clear()
        self.calls.clear()
        self.usage = None
        self.finish_reason = None
        self.interrupted = False

    @property
    def has_content(self) -> bool:
        return bool(self.text or self.reasoning or self.calls)

    def message(self) -> Message:
        calls = [
            # Some servers omit ids; a made-up one keeps call and result paired.
            ToolCall(id=p.id or f"call_{random_hex(12)}", name=p.name, arguments="".join(p.arguments))
            for _, p in sorted(self.calls.items())
        ]
        return Message(role="assistant", content="".join(self.text), tool_calls=calls, reasoning="".join(self.reasoning))
