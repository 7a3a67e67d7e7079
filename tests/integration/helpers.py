"""Building a real Agent (real tools, real recorder, real client) against the fake server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from app.core.agent import Agent, AgentLimits, StaticAssembler
from app.core.events import ApprovalNeeded, Decision, Event
from app.core.llm.openai_compat import OpenAICompatProvider
from app.core.llm.retry import RetryPolicy
from app.core.session.recorder import SessionRecorder
from app.core.tools.base import ToolContext
from app.core.tools.permissions import ApprovalMode, PermissionPolicy
from app.core.tools.registry import builtin_registry
from tests.fakes.openai_server import FakeOpenAIServer


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
) -> Agent:
    registry = builtin_registry()
    if mode is ApprovalMode.PLAN:
        registry = registry.read_only()
    return Agent(
        provider=OpenAICompatProvider(base_url=server.base_url, model="fake-model", api_key="k", read_timeout=read_timeout),
        tools=registry,
        policy=PermissionPolicy(mode=mode, deny=deny or [], root=workspace),
        tool_context=ToolContext(root=workspace, shell_timeout=5),
        assembler=StaticAssembler("You are a test agent."),
        recorder=SessionRecorder(chats, cwd=workspace, version="test"),
        retry=RetryPolicy(max_retries=retries, base_delay=0.01),
        limits=limits,
        context_window=1000,
        interactive=interactive,
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
