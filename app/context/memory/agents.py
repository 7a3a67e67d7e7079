"""The forked agents that extract and consolidate memories: the same Agent class, restricted.

They read and write only inside the memory roots they are given, run read-only
shell commands at most, and stop after a few requests or minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.context.memory.permissions import ScopedDecision, memory_agent_decision
from app.core.agent import Agent, AgentLimits, StaticAssembler
from app.core.llm.provider import Provider
from app.core.llm.retry import RetryPolicy
from app.core.tools.base import Tool, ToolContext, ToolKind
from app.core.tools.permissions import PermissionDecision
from app.core.tools.registry import builtin_registry

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
) -> Agent:
    for root in roots:
        Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)
    workspace = common_root(roots)
    context = ToolContext(root=workspace, read_only_shell=True, shell_timeout=30)
    return Agent(
        provider=provider,
        tools=builtin_registry().restricted(MEMORY_AGENT_TOOLS),
        policy=MemoryAgentPolicy(roots, workspace, protect_pinned),  # type: ignore[arg-type]
        tool_context=context,
        assembler=StaticAssembler(system_prompt, provider.model),
        retry=RetryPolicy(max_retries=1, max_total_seconds=20),
        limits=AgentLimits(max_requests=max_requests, time_budget=time_budget),
        interactive=False,
    )
