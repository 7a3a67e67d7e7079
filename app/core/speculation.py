"""Follow-up suggestions and speculative turns.

After an answer, a cheap side query guesses the person's likely next request.
While they read, a forked agent (the same Agent class) already runs it, writing
only into a copy-on-write overlay. Accepting applies the overlay and adds the
turn to the conversation as if it had been sent; anything else throws it away.
"""

from __future__ import annotations

import asyncio
from dataclasses import field, replace
from app.dataclass import dataclass
from typing import TYPE_CHECKING, Any

from app.core.events import Event, TurnFailed, TurnFinished
from app.core.history import Message, Usage
from app.core.llm.side_query import side_query
from app.core.protocols import GuardsOnly
from app.core.overlay import OverlayChange, OverlayConflict, OverlayFileSystem, remove_stale_shadows
from app.core.tools.base import Tool, ToolKind
from app.core.tools.permissions import PermissionDecision
from app.templates import package_template

if TYPE_CHECKING:
    from app.core.request import AssembledRequest
    from app.core.agent import Agent
    from app.core.llm.provider import Provider

SPECULATION_MAX_REQUESTS = 20
SPECULATION_MAX_MESSAGES = 100
# A speculation that stalls (a silent endpoint, a slow tool) stops on its own after this long.
SPECULATION_TIME_BUDGET = 300.0
SUGGESTION_MAX_CHARS = 120
RECENT_MESSAGES = 8


def _template(name: str) -> str:
    return package_template("app.core", name, folder="prompts").strip()


def _recent_dialog(history: list[Message]) -> str:
    lines = []
    for message in history[-RECENT_MESSAGES * 3 :]:
        if message.role in ("user", "assistant") and message.content.strip() and not message.content.startswith("<"):
            who = "User" if message.role == "user" else "Assistant"
            lines.append(f"{who}: {message.content.strip()[:1500]}")
    return "\n\n".join(lines[-RECENT_MESSAGES:])


async def suggest_next(provider: Provider, history: list[Message], *, timeout: float = 20.0) -> str | None:
    """One short likely next request, or None when there is no obvious one."""
    dialog = _recent_dialog(history)
    if not dialog:
        return None
    text = await side_query(provider, system=_template("suggest"), prompt=dialog, timeout=timeout, max_tokens=60, temperature=0.3)
    line = " ".join(str(text).strip().strip('"').split())
    if not line or line.upper().startswith("NONE") or len(line) > SUGGESTION_MAX_CHARS:
        return None
    return line


class _QuietAssembler:
    """The main assembler's view, without touching its state (no report, no reminders consumed)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def assemble(self, history: list[Message], tools: list[dict]) -> AssembledRequest:
        return self.inner.assemble(history, tools)

    def observe(self, request: AssembledRequest, usage: Any) -> None:
        return None

    def reminders(self) -> list[str]:
        return []


class _SpeculationPolicy:
    """What would be asked runs without asking (nothing is real until accepted); what is denied stays denied.

    Deny rules are the person's standing "never", so they hold in the overlay too: an
    accepted speculation must not land a write a real turn would have refused.
    """

    def __init__(self, base: Any) -> None:
        self.base = base
        # Every call let through, so acceptance can ask the real policy about them again (see Speculation.to_approve).
        self.calls: list[tuple[Tool, dict[str, Any]]] = []

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[PermissionDecision, str]:
        decision, reason = self.base.decide(tool, args)
        if decision is PermissionDecision.DENY:
            return decision, reason
        if tool.kind is ToolKind.EXTERNAL:
            # An MCP server acts outside the overlay: nothing it does could be thrown away.
            return PermissionDecision.DENY, "a speculative turn cannot call MCP tools (they act outside the copy-on-write overlay)"
        self.calls.append((tool, args))
        return PermissionDecision.ALLOW, "speculation (copy-on-write)"

    def allow_for_session(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        return []


def _summary(tool: Tool, args: dict[str, Any]) -> str:
    try:
        return tool.summarize(args)
    except Exception:
        return tool.name


class _PreToolUseOnly:
    """The person's PreToolUse hooks for a speculative agent: they may deny (or ask, which a
    speculation cannot, so the call is refused). Nothing else of the hooks runs for a turn
    that may be thrown away, and nothing it says reaches the real conversation."""

    def __init__(self, base: Any) -> None:
        self.base = base

    async def before_tool(self, call: Any, args: dict[str, Any]) -> Any:
        return await self.base.before_tool(call, args)

    async def after_tool(self, call: Any, args: dict[str, Any], output: str, status: str) -> None:
        return None

    async def prompt_submitted(self, prompt: str) -> Any:
        return None

    async def turn_stopped(self, outcome: str) -> None:
        return None

    def take_notices(self) -> list[str]:
        return []

    def take_reminders(self) -> list[str]:
        return []


@dataclass
class Speculation:
    """One speculative turn: the suggestion run by a forked agent into an overlay, until accepted or dropped."""

    prompt: str
    base: Agent = field(repr=False)
    overlay: OverlayFileSystem = field(repr=False)
    events: list[Event] = field(default_factory=list, repr=False)
    status: str = "running"  # running | ready | failed | cancelled
    error: str = ""
    _fork: Any = field(default=None, repr=False)
    _task: asyncio.Task[None] | None = field(default=None, repr=False)
    _start: int = field(default=0, repr=False)

    @classmethod
    def start(cls, base: Agent, prompt: str) -> Speculation:
        from app.core.agent import Agent, AgentLimits

        remove_stale_shadows()
        overlay = OverlayFileSystem(base.tool_context.root)
        history = list(base.history)
        fork = Agent(
            provider=base.provider,
            tools=base.tools,
            policy=_SpeculationPolicy(base.policy),  # type: ignore[arg-type]
            tool_context=replace(base.tool_context, fs=overlay, read_only_shell=True),
            assembler=_QuietAssembler(base.assembler),
            history=history,
            retry=base.retry,
            limits=AgentLimits(
                max_requests=SPECULATION_MAX_REQUESTS,
                max_messages=len(history) + SPECULATION_MAX_MESSAGES,
                time_budget=SPECULATION_TIME_BUDGET,
            ),
            context_window=base.context_window,
            interactive=False,
            observers=[GuardsOnly(base.observers)],  # the team-memory secret guard, for one
            hooks=_PreToolUseOnly(base.hooks) if base.hooks is not None else None,
        )
        speculation = cls(prompt=prompt, base=base, overlay=overlay, _fork=fork, _start=len(history))
        speculation._task = asyncio.create_task(speculation._run())
        return speculation

    async def _run(self) -> None:
        try:
            async for event in self._fork.run(self.prompt):
                self.events.append(event)
        except asyncio.CancelledError:
            self.status = "cancelled"
            raise
        except Exception as exc:  # a crashing speculation is reported and thrown away
            self._fail(f"{type(exc).__name__}: {exc}")
            return
        final = self.events[-1] if self.events else None
        if isinstance(final, TurnFinished):
            self.status = "ready"
        else:
            self._fail(final.message if isinstance(final, TurnFailed) else "the speculative turn did not finish")

    def _fail(self, error: str) -> None:
        # Nothing of a failed run will be applied (accepting sends the prompt as a normal turn): drop its shadow now.
        self.status, self.error = "failed", error
        self.overlay.discard()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def messages(self) -> list[Message]:
        """The turn as it would join the conversation: the request and everything after it."""
        return list(self._fork.history[self._start :])

    @property
    def usage(self) -> Usage | None:
        """What the speculative turn's last request cost, as the server reported it."""
        return self._fork.last_usage if self._fork is not None else None

    def changes(self) -> list[OverlayChange]:
        return self.overlay.changes()

    def to_approve(self) -> list[str]:
        """The calls of the prepared turn that the approval mode would ask about if the turn ran now.

        Asked of the real policy at acceptance, not when preparing: the mode (or a rule) may
        have changed since. Only calls whose effect is in the overlay count; a read is a read.
        """
        if self._fork is None or not self.changes():
            return []
        policy: _SpeculationPolicy = self._fork.policy
        asked = []
        for tool, args in policy.calls:
            decision, _ = policy.base.decide(tool, args)
            if decision is not PermissionDecision.ALLOW:
                asked.append(_summary(tool, args))
        return asked

    def approve_for_session(self) -> None:
        """"Always" at acceptance: the same calls are allowed for the rest of the session, as in a normal turn."""
        if self._fork is not None:
            policy: _SpeculationPolicy = self._fork.policy
            for tool, args in policy.calls:
                policy.base.allow_for_session(tool, args)

    def diff(self) -> str:
        """What accepting would change in the workspace, as one unified diff (shown for approval)."""
        return self.overlay.diff_text()

    async def wait(self) -> None:
        if self._task is not None:
            await asyncio.wait([self._task])

    def abort(self) -> None:
        """The person typed something else: stop at once and leave the workspace untouched."""
        if self._fork is not None:
            self._fork.cancel()
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self.status = "cancelled"
        self.overlay.discard()

    def accept(self) -> list[Message]:
        """Apply the overlay (all or nothing) and hand back the turn's messages for the conversation.

        Raises OverlayConflict, with nothing applied, when a real file changed meanwhile.
        """
        if self.status != "ready":
            raise RuntimeError(f"the speculation is {self.status}, not ready")
        try:
            self.overlay.apply()
        except OverlayConflict:
            self.abort()  # prepared against files that are gone: it can only be sent again
            raise
        return self.messages
