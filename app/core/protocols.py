"""What the core needs from the layers above it, as protocols.

The core (the turn loop) is written against these; ``app/context`` and ``app/hooks``
implement them and ``app/runtime.py`` passes the implementations in. Nothing here
imports upward, so the core can be read, run and tested on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from app.core.history import Message, ToolCall, Usage
    from app.core.request import AssembledRequest
    from app.core.tools.base import Tool, ToolContext


class Assembler(Protocol):
    """Builds the request for the next model call from the history (the context engine's job).

    The context assembler also offers ``fixed_tokens``, ``request_tokens``, ``does_not_fit``,
    ``take_notices`` and ``history_replaced``; the agent uses each only when present, so a
    forked agent's fixed prompt needs none of them.
    """

    def assemble(self, history: list[Message], tools: list[dict]) -> AssembledRequest: ...

    def observe(self, request: AssembledRequest, usage: Usage | None) -> None:
        """The request was sent and answered; ``usage`` is what the server reported for it."""

    def reminders(self) -> list[str]:
        """``<system-reminder>`` texts to add to the conversation before the next request (skill deltas, recall)."""


class TurnObserver(Protocol):
    """Something that watches turns: told when one starts, after each tool, when it ends; may refuse a tool.

    The agent calls its observers in the order it was given them (the composition root
    lists them in one place), so the after-turn order is visible there. Every method has
    a do-nothing default: a class that subclasses this protocol overrides what it watches.
    """

    def on_turn_start(self, prompt: str, history: list[Message]) -> None:
        """The user's entry is in ``history`` (its last message)."""

    async def before_request(self, number: int) -> None:
        """Awaited before each model request (1 = the turn's first); may wait a bounded moment (recall)."""

    def guard_tool(self, call: ToolCall, tool: Tool, args: dict, context: ToolContext) -> str | None:
        """A sentence refuses the call before it runs (a secret bound for team memory); None lets it through."""
        return None

    def on_tool_ran(self, call: ToolCall, args: dict) -> None:
        """A tool call ran (skills activate on the paths it touched)."""

    def on_context_filling(self, history: list[Message]) -> None:
        """The context nears auto-compaction: save what matters before it is summarized (memory flush)."""

    def on_turn_end(self, history: list[Message], finished: bool) -> None:
        """The turn ended; ``finished`` says whether it ended with an answer."""


class ToolGuard(TurnObserver):
    """An observer that only guards tools, from a function (a forked agent's write checks)."""

    def __init__(self, guard: Callable[[ToolCall, Tool, dict], str | None]) -> None:
        self.guard = guard

    def guard_tool(self, call: ToolCall, tool: Tool, args: dict, context: ToolContext) -> str | None:
        return self.guard(call, tool, args)


class GuardsOnly(TurnObserver):
    """Another agent's observers, as far as refusing tools goes (a speculative fork keeps the secret guard)."""

    def __init__(self, observers: Sequence[TurnObserver]) -> None:
        self.observers = list(observers)

    def guard_tool(self, call: ToolCall, tool: Tool, args: dict, context: ToolContext) -> str | None:
        for observer in self.observers:
            refusal = observer.guard_tool(call, tool, args, context)
            if refusal:
                return refusal
        return None


class ToolVerdictLike(Protocol):
    decision: str  # "", deny, ask, allow
    reason: str


class HookRunner(Protocol):
    """The user's lifecycle hooks as the turn loop meets them (app.hooks.bridge.AgentHookBridge)."""

    async def prompt_submitted(self, prompt: str) -> str | None:
        """A reason when a UserPromptSubmit hook blocks the prompt."""

    async def before_tool(self, call: ToolCall, args: dict[str, Any]) -> ToolVerdictLike: ...

    async def after_tool(self, call: ToolCall, args: dict[str, Any], output: str, status: str) -> None: ...

    async def turn_stopped(self, outcome: str) -> None: ...

    def take_notices(self) -> list[str]: ...

    def take_reminders(self) -> list[str]: ...


class CompactionOutcome(Protocol):
    """What a summary compaction did (app.context.compaction.compactor.CompactionResult)."""

    status: Any  # an IntEnum member with .name and .failed
    tokens_before: int
    tokens_after: int
    messages: list[Message] | None
    limit: int

    @property
    def ok(self) -> bool: ...

    @property
    def message(self) -> str: ...

    def record_payload(self) -> dict: ...


class MicroOutcome(Protocol):
    """What micro-compaction did (app.context.compaction.micro.MicroResult)."""

    messages: list[Message]
    trigger: str | None
    cleared_ids: list[str]
    tokens_saved: int

    @property
    def changed(self) -> bool: ...

    def record_payload(self) -> dict: ...


class Compactor(Protocol):
    """Decides when the history is too big and makes it smaller (app.context.compaction.compactor.Compactor)."""

    context_window: int
    settings: Any  # .auto, .auto_delay_seconds
    warned: bool
    flushed: bool

    @property
    def thresholds(self) -> Any: ...  # .warn, .auto, .hard

    @property
    def paused(self) -> bool: ...

    def observe(self, tracked: int, reported: int | None) -> None: ...

    def gate_tokens(self, tracked: int) -> int: ...

    def band(self, tokens: int) -> str: ...

    def wants_memory_flush(self, tokens: int) -> bool: ...

    def image_overflow(self, history: list[Message]) -> bool: ...

    def count(self, messages: list[Message]) -> int: ...

    def micro(self, history: list[Message], *, force: bool = False, last_response_at: float | None = None) -> MicroOutcome: ...

    def compact(
        self,
        history: list[Message],
        *,
        trigger: str,
        focus: str = "",
        forced: bool = False,
        measure: Callable[[list[Message]], int] | None = None,
    ) -> Awaitable[CompactionOutcome]: ...
