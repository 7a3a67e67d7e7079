"""Building a real Agent (real tools, real recorder, real client) against the fake server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.agent import Agent, AgentLimits, StaticAssembler
from app.core.events import ApprovalNeeded, Decision, Event
from app.core.llm.openai_compat import OpenAICompatProvider
from app.core.llm.retry import RetryPolicy
from app.core.session.recorder import SessionRecorder
from app.core.tools.base import ToolContext
from app.core.tools.permissions import ApprovalMode, PermissionPolicy
from app.core.tools.registry import builtin_registry
from tests.fakes.openai_server import FakeOpenAIServer

if TYPE_CHECKING:
    from app.context.compaction.compactor import Compactor
    from app.core.protocols import HookRunner, TurnObserver


def make_agent(
    server: FakeOpenAIServer,
    workspace: Path,
    chats: Path,
    *,
    mode: ApprovalMode = ApprovalMode.DEFAULT,
    interactive: bool = True,
    retries: int = 0,
    read_timeout: float = 10.0,
    limits: AgentLimits | None = None,
    deny: list[str] | None = None,
    context_window: int = 1000,
    compactor: Callable[[OpenAICompatProvider], Compactor] | None = None,
    observers: Sequence[TurnObserver] = (),
    hooks: HookRunner | None = None,
) -> Agent:
    """``compactor`` builds the agent's compactor from its provider; ``observers`` are told about its turns, in order."""
    registry = builtin_registry()
    if mode is ApprovalMode.PLAN:
        registry = registry.read_only()
    provider = OpenAICompatProvider(base_url=server.base_url, model="fake-model", api_key="k", read_timeout=read_timeout)
    return Agent(
        provider=provider,
        tools=registry,
        policy=PermissionPolicy(mode=mode, deny=deny or [], root=workspace),
        tool_context=ToolContext(root=workspace, shell_timeout=5),
        assembler=StaticAssembler("You are a test agent."),
        recorder=SessionRecorder(chats, cwd=workspace, version="test"),
        retry=RetryPolicy(max_retries=retries, base_delay=0.01),
        limits=limits,
        context_window=context_window,
        interactive=interactive,
        compactor=compactor(provider) if compactor is not None else None,
        observers=observers,
        hooks=hooks,
    )


async def run_turn(
    agent: Agent, prompt: str, *, answer: Callable[[ApprovalNeeded], Decision] | None = None
) -> list[Event]:
    """All events of one turn; approvals are answered by ``answer`` (default: approve)."""
    events: list[Event] = []
    async for event in agent.run(prompt):
        events.append(event)
        if isinstance(event, ApprovalNeeded) and event.future is not None:
            decision = answer(event) if answer else Decision.APPROVE
            event.future.set_result(decision)
    return events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.01)
