"""The forked agents that extract and consolidate memories: the same Agent class, restricted.

They read and write only inside the memory roots they are given, run read-only
shell commands at most, and stop after a few requests or minutes. The request limit
is checked by the agent before each request; the minutes are a wall-clock limit on
the whole run (``run_memory_agent``), so one slow stream or tool call cannot outlast it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.context.memory.guard import memory_write_refusal
from app.context.memory.paths import MemoryPaths
from app.context.memory.guard import ScopedDecision, memory_agent_decision
from app.context.memory.guard import written_path
from app.core.agent import Agent, AgentLimits, StaticAssembler
from app.core.protocols import ToolGuard
from app.core.events import ToolCallFinished
from app.core.llm.provider import Provider
from app.core.llm.retry import RetryPolicy
from app.core.tools.base import Tool, ToolContext, ToolKind
from app.core.tools.permissions import PermissionDecision
from app.core.tools.registry import builtin_registry


@dataclass(frozen=True)
class AgentBudget:
    """How far a forked memory agent may go: model requests ("turns") and wall-clock seconds."""

    max_requests: int
    seconds: float


# The spec's limits: extraction 5 turns / 2 minutes, dream 8 turns / 5 minutes.
EXTRACTION_BUDGET = AgentBudget(max_requests=5, seconds=120.0)
DREAM_BUDGET = AgentBudget(max_requests=8, seconds=300.0)
# After the budget runs out the agent is cancelled; this long at most is waited for it to stop.
STOP_GRACE_SECONDS = 5.0

MEMORY_AGENT_TOOLS = ("read_file", "list_directory", "glob", "grep_search", "run_shell_command", "write_file", "edit")


@dataclass
class MemoryAgentPolicy:
    """Reads and writes only under ``roots``; everything else is denied (nobody is there to ask)."""

    roots: Sequence[Path]
    cwd: Path
    protect_pinned: bool = False

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[PermissionDecision, str]:
        verdict = memory_agent_decision(tool.name, args, list(self.roots), cwd=self.cwd, protect_pinned=self.protect_pinned)
        if verdict.decision is ScopedDecision.DENY:
            return PermissionDecision.DENY, verdict.reason or verdict.label or "not allowed for a memory agent"
        if verdict.decision is ScopedDecision.ALLOW or tool.kind is ToolKind.READ:
            return PermissionDecision.ALLOW, "memory agent"
        return PermissionDecision.DENY, "memory agents may only read and write memory files"

    def allow_for_session(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        return []


def common_root(roots: Sequence[Path]) -> Path:
    """The nearest directory holding every root: the tools' workspace for a memory agent."""
    parts = [Path(r).resolve().parts for r in roots]
    shared: list[str] = []
    for items in zip(*parts):
        if len(set(items)) != 1:
            break
        shared.append(items[0])
    return Path(*shared) if shared else Path("/")


def build_memory_agent(
    provider: Provider,
    system_prompt: str,
    roots: Sequence[Path],
    *,
    max_requests: int,
    time_budget: float,
    protect_pinned: bool = False,
    mem: MemoryPaths | None = None,
) -> Agent:
    for root in roots:
        Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)
    workspace = common_root(roots)
    context = ToolContext(root=workspace, read_only_shell=True, shell_timeout=30)
    agent = Agent(
        provider=provider,
        tools=builtin_registry().restricted(MEMORY_AGENT_TOOLS),
        policy=MemoryAgentPolicy(roots, workspace, protect_pinned),  # type: ignore[arg-type]
        tool_context=context,
        assembler=StaticAssembler(system_prompt, provider.model),
        retry=RetryPolicy(max_retries=1, max_total_seconds=20),
        limits=AgentLimits(max_requests=max_requests, time_budget=time_budget),
        interactive=False,
        # Its writes are checked like the main agent's: no secrets, a valid file in its type's folder.
        observers=[ToolGuard(lambda call, tool, args: memory_write_refusal(mem, tool.name, args, context.root))] if mem is not None else (),
    )
    return agent


@dataclass
class AgentRun:
    """What a memory agent did: files it wrote, whether any tool ran, and why it did not finish."""

    written: list[str] = field(default_factory=list)
    tools_ran: bool = False
    failure: str = ""
    timed_out: bool = False


async def run_memory_agent(agent: Agent, prompt: str, seconds: float, *, stop_grace: float = STOP_GRACE_SECONDS) -> AgentRun:
    """Run one memory agent's turn within ``seconds`` of wall-clock time, the whole run included.

    Past the budget the turn is cancelled and waited for (briefly) before this returns,
    so nothing keeps writing behind the caller's back. A file is written whole or not at
    all (the tools write atomically), so what was saved before the cut stays valid.
    """
    run = AgentRun()
    try:
        async with asyncio.timeout(seconds):
            async with aclosing(agent.run(prompt)) as events:
                async for event in events:
                    if isinstance(event, ToolCallFinished):
                        run.tools_ran = True
                        target = written_path(event.call.name, event.call.arguments)
                        if event.status == "ok" and target:
                            run.written.append(target if os.path.isabs(target) else str(agent.tool_context.root / target))
                    elif event.kind == "turn_failed":
                        run.failure = getattr(event, "message", "") or "the memory agent failed"
    except TimeoutError:
        run.timed_out = True
        run.failure = f"timed out: stopped at its time budget of {_seconds_in_words(seconds)}"
        await _stopped(agent, stop_grace)
    return run


async def _stopped(agent: Agent, grace: float) -> None:
    """Cancel the agent's turn and wait, at most ``grace`` seconds, until it has ended."""
    agent.cancel()
    loop = asyncio.get_running_loop()
    end = loop.time() + grace
    while agent.busy and loop.time() < end:
        await asyncio.sleep(0.01)


def _seconds_in_words(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} s"
