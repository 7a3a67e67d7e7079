"""The agent tells its observers about a turn in the order it was given them, at each moment of the turn;
the composition root gives the main agent its collaborators once, in one visible order."""

from __future__ import annotations

from pathlib import Path

from app.context.assembler import ContextAssembler
from app.context.memory.manager import MemoryManager
from app.context.skills.drafts import SkillDrafter
from app.context.skills.turns import SkillTurns
from app.core.events import ToolCallFinished, TurnFinished
from app.core.protocols import TurnObserver
from app.core.session.auto_title import AutoTitler
from app.core.tools.permissions import ApprovalMode
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent, run_turn
from tests.integration.memory_fixtures import memory_settings


class Journal(TurnObserver):
    def __init__(self, name: str, seen: list[str], *, refuse: str | None = None) -> None:
        self.name, self.seen, self.refuse = name, seen, refuse

    def on_turn_start(self, prompt, history):  # type: ignore[no-untyped-def]
        self.seen.append(f"{self.name} start {prompt}")

    async def before_request(self, number: int) -> None:
        self.seen.append(f"{self.name} request {number}")

    def guard_tool(self, call, tool, args, context):  # type: ignore[no-untyped-def]
        self.seen.append(f"{self.name} guard {call.name}")
        return self.refuse if args.get("path") == "secret.txt" else None

    def on_tool_ran(self, call, args):  # type: ignore[no-untyped-def]
        self.seen.append(f"{self.name} ran {call.name}")

    def on_turn_end(self, history, finished):  # type: ignore[no-untyped-def]
        self.seen.append(f"{self.name} end {finished}")


async def test_observers_are_told_in_their_order_at_every_moment_of_a_turn(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("hello\n")
    seen: list[str] = []
    agent = make_agent(fake_llm, workspace, tmp_path / "chats", mode=ApprovalMode.YOLO, observers=[Journal("first", seen), Journal("second", seen)])
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "a.txt"})]), Reply.text("It says hello."))
    events = await run_turn(agent, "read a.txt")
    assert isinstance(events[-1], TurnFinished)
    assert seen == [
        "first start read a.txt",
        "second start read a.txt",
        "first request 1",
        "second request 1",
        "first guard read_file",
        "second guard read_file",
        "first ran read_file",
        "second ran read_file",
        "first request 2",
        "second request 2",
        "first end True",
        "second end True",
    ]


async def test_a_guard_that_refuses_stops_the_call_before_the_later_guards_and_the_tool(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    seen: list[str] = []
    observers = [Journal("first", seen, refuse="no secrets here"), Journal("second", seen)]
    agent = make_agent(fake_llm, workspace, tmp_path / "chats", mode=ApprovalMode.YOLO, observers=observers)
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": "secret.txt", "content": "k\n"})]), Reply.text("Refused."))
    events = await run_turn(agent, "save it")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.status == "rejected" and finished.output == "no secrets here"
    assert not (workspace / "secret.txt").exists(), "the refused write never ran"
    assert "second guard write_file" not in seen and not any(" ran " in line for line in seen)
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "Refused."


def test_the_runtime_gives_the_agent_its_observers_once_in_one_order(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    agent = runtime.agent
    assert agent is not None
    kinds = [type(observer) for observer in agent.observers]
    assert kinds == [ContextAssembler, SkillTurns, SkillDrafter, MemoryManager, AutoTitler]
    assert agent.observers[0] is runtime.assembler and agent.observers[3] is runtime.memory and agent.observers[4] is runtime.titles
    assert agent.hooks is runtime.hooks and agent.compactor is not None
    assert runtime.memory.provider is agent.provider and runtime.drafter.provider is agent.provider
