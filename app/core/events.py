"""The typed events the core emits.

The TUI, the headless printer and the tests are three consumers of these same
events; none of them reaches into the agent for anything else.
"""

from __future__ import annotations

import asyncio
from dataclasses import field
from app.dataclass import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from app.core.history import Message, ToolCall, Usage

if TYPE_CHECKING:
    from app.core.request import AssembledRequest


class Decision(str, Enum):
    """A person's answer to an approval request."""

    APPROVE = "approve"
    REJECT = "reject"
    ALWAYS = "always"  # approve, and stop asking for this tool for the rest of the session


@dataclass
class Event:
    """Base class; ``kind`` is the stable name used in stream-json output."""

    kind: str = field(init=False, default="event")

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind}


@dataclass
class TurnStarted(Event):
    """A turn begins for ``prompt``."""

    kind: str = field(init=False, default="turn_started")
    turn_id: str = ""
    prompt: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "turn_id": self.turn_id, "prompt": self.prompt}


@dataclass
class RequestStarted(Event):
    """One request to the model is about to be sent (a turn may send several)."""

    kind: str = field(init=False, default="request_started")
    model: str = ""
    message_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "model": self.model, "message_count": self.message_count}


@dataclass
class ContextAssembled(Event):
    """The exact request about to be sent, every part tagged with its source."""

    kind: str = field(init=False, default="context_assembled")
    request: AssembledRequest | None = None

    def to_json(self) -> dict[str, Any]:
        if self.request is None:
            return {"type": self.kind}
        return {
            "type": self.kind,
            "model": self.request.model,
            "context_window": self.request.context_window,
            "token_method": self.request.token_method,
            "total_tokens": self.request.total_tokens,
            "tokens_by_group": self.request.tokens_by_group(),
        }


@dataclass
class TextDelta(Event):
    """More of the answer's text, as it streams in."""

    kind: str = field(init=False, default="text_delta")
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "text": self.text}


@dataclass
class ReasoningDelta(Event):
    """More of the model's reasoning, as it streams in (shown apart from the answer)."""

    kind: str = field(init=False, default="reasoning_delta")
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "text": self.text}


@dataclass
class StreamReset(Event):
    """The stream broke and is being retried: discard the partial reply shown so far."""

    kind: str = field(init=False, default="stream_reset")
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "reason": self.reason}


@dataclass
class Retrying(Event):
    """A request failed in a way worth retrying; it is sent again after ``delay`` seconds."""

    kind: str = field(init=False, default="retrying")
    attempt: int = 0
    max_attempts: int = 0
    delay: float = 0.0
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "attempt": self.attempt,
            "max_attempts": self.max_attempts,
            "delay": round(self.delay, 3),
            "reason": self.reason,
        }


@dataclass
class AssistantMessage(Event):
    """One complete reply of the model (text and/or tool calls)."""

    kind: str = field(init=False, default="assistant_message")
    message: Message = field(default_factory=lambda: Message(role="assistant"))
    finish_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "message": self.message.to_dict(), "finish_reason": self.finish_reason}


@dataclass
class ToolCallStarted(Event):
    """A tool call was allowed and starts running."""

    kind: str = field(init=False, default="tool_call_started")
    call: ToolCall = field(default_factory=lambda: ToolCall("", ""))
    summary: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "call": self.call.to_dict(), "summary": self.summary}


@dataclass
class ApprovalNeeded(Event):
    """A tool call waits for a person; resolve ``future`` with a Decision.

    Cancelling the future (or the turn) counts as a rejection.
    """

    kind: str = field(init=False, default="approval_needed")
    call: ToolCall = field(default_factory=lambda: ToolCall("", ""))
    summary: str = ""
    detail: str = ""
    tool_kind: str = ""
    future: asyncio.Future[Decision] | None = None
    # Why the call asks (the policy's reason), e.g. that a skill's grant did not cover it.
    reason: str = ""
    # The rules an "always" answer would add for the rest of the session (said before it is given).
    always: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "call": self.call.to_dict(),
            "summary": self.summary,
            "tool_kind": self.tool_kind,
            "reason": self.reason,
        }


@dataclass
class ToolCallFinished(Event):
    """A tool call ended: it ran (ok or error), or it was rejected or cancelled before it could."""

    kind: str = field(init=False, default="tool_call_finished")
    call: ToolCall = field(default_factory=lambda: ToolCall("", ""))
    status: str = "ok"  # ok | error | rejected | cancelled
    output: str = ""
    summary: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "call": self.call.to_dict(),
            "status": self.status,
            "output": self.output,
            "summary": self.summary,
        }


@dataclass
class UsageUpdated(Event):
    """Usage of the last request and the running total of the turn."""

    kind: str = field(init=False, default="usage")
    last: Usage = field(default_factory=Usage)
    turn_total: Usage = field(default_factory=Usage)
    context_window: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "last": self.last.to_dict(),
            "turn_total": self.turn_total.to_dict(),
            "context_window": self.context_window,
        }


@dataclass
class Notice(Event):
    """Something the person should read that is not part of the conversation."""

    kind: str = field(init=False, default="notice")
    level: str = "info"  # info | warning | error
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "level": self.level, "text": self.text}


@dataclass
class TurnFinished(Event):
    """The model answered without asking for more tools: the turn is done."""

    kind: str = field(init=False, default="turn_finished")
    turn_id: str = ""
    result: str = ""
    usage: Usage = field(default_factory=Usage)
    tool_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "turn_id": self.turn_id,
            "result": self.result,
            "usage": self.usage.to_dict(),
            "tool_calls": self.tool_calls,
        }


@dataclass
class TurnFailed(Event):
    """The turn stopped on an error; ``message`` is one sentence a person understands."""

    kind: str = field(init=False, default="turn_failed")
    turn_id: str = ""
    message: str = ""
    error_kind: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "turn_id": self.turn_id, "message": self.message, "error_kind": self.error_kind}


@dataclass
class TurnCancelled(Event):
    """The turn was cancelled; history and record are left valid to resend."""

    kind: str = field(init=False, default="turn_cancelled")
    turn_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "turn_id": self.turn_id}


@dataclass
class ContextWarning(Event):
    """The context crossed the warn threshold."""

    kind: str = field(init=False, default="context_warning")
    tokens: int = 0
    warn: float = 0
    auto: float = 0
    hard: float = 0
    window: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "tokens": self.tokens, "warn": self.warn, "auto": self.auto, "hard": self.hard, "window": self.window}


@dataclass
class CompactionPending(Event):
    """Auto-compaction starts after ``delay`` seconds unless the future is resolved with False (skip)."""

    kind: str = field(init=False, default="compaction_pending")
    tokens: int = 0
    threshold: float = 0
    delay: float = 0
    future: asyncio.Future[bool] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "tokens": self.tokens, "threshold": self.threshold, "delay": self.delay}


@dataclass
class CompactionStarted(Event):
    """Compaction of the history begins (``trigger`` says why)."""

    kind: str = field(init=False, default="compaction_started")
    trigger: str = ""
    tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "trigger": self.trigger, "tokens": self.tokens}


@dataclass
class CompactionFinished(Event):
    """Compaction ended, compressed or not; ``message`` says how, with the numbers."""

    kind: str = field(init=False, default="compaction_finished")
    trigger: str = ""
    ok: bool = False
    status: str = ""
    tokens_before: int = 0
    tokens_after: int = 0
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "trigger": self.trigger,
            "ok": self.ok,
            "status": self.status,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "message": self.message,
        }


@dataclass
class MicroCompacted(Event):
    """Old tool results were cleared from the history without a model call."""

    kind: str = field(init=False, default="micro_compacted")
    trigger: str = ""
    cleared: int = 0
    tokens_saved: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "trigger": self.trigger, "cleared": self.cleared, "tokens_saved": self.tokens_saved}


# Where background work reports from (BackgroundStatus.source).
MEMORY_WORK, SKILLS_ON_DISK, SKILL_DRAFTS = "memory", "skills", "drafts"


@dataclass
class BackgroundStatus(Event):
    """Work outside a turn changed what a view shows: memory extraction or dreaming, the skills on
    disk, a skill draft. Published through one sink (app.core.status); views re-read their source."""

    kind: str = field(init=False, default="background_status")
    source: str = ""  # MEMORY_WORK | SKILLS_ON_DISK | SKILL_DRAFTS
    state: str = ""  # the producer's word for where it is now (a draft's "done", a task's "running")

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "source": self.source, "state": self.state}
