"""Whole turns through the real agent, tools, recorder and client, against the scripted server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.core.agent import AgentLimits
from app.core.events import (
    ApprovalNeeded,
    Decision,
    Notice,
    StreamReset,
    TextDelta,
    ToolCallFinished,
    TurnCancelled,
    TurnFailed,
    TurnFinished,
    UsageUpdated,
)
from app.core.session.resume import load_session
from app.core.tools.permissions import ApprovalMode
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import kinds, make_agent, run_turn, wait_for
from tests.workspace import Workspace

WORKSPACE = Workspace(files={"notes.txt": "alpha\nbeta\n"})


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    return tmp_path / "chats"


def _record_types(chats: Path) -> list[tuple[str, str | None]]:
    [path] = list(chats.glob("*.jsonl"))
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["type"], r.get("subtype")) for r in rows]


async def test_text_turn_streams_records_and_reports_usage(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.text("Hello", " there", usage=(40, 2)))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "hi")
    assert kinds(events)[0] == "turn_started"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there"
    usage = [e for e in events if isinstance(e, UsageUpdated)]
    assert usage[-1].last.prompt_tokens == 40 and usage[-1].context_window == 1000
    final = events[-1]
    assert isinstance(final, TurnFinished) and final.result == "Hello there"
    assert [m.role for m in agent.history] == ["user", "assistant"]
    assert _record_types(chats) == [("user", None), ("assistant", None)]
    sent = fake_llm.requests[0].body["messages"]
    assert sent[0] == {"role": "system", "content": "You are a test agent."}
    assert {t["function"]["name"] for t in fake_llm.requests[0].body["tools"]} >= {"read_file", "write_file", "run_shell_command"}


async def test_tool_loop_reads_a_file_and_answers(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("call_1", "read_file", ['{"path": ', '"notes.txt"}'])]))
    fake_llm.push(Reply.text("It says alpha and beta."))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "what is in notes.txt?")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert len(finished) == 1 and finished[0].status == "ok"
    assert "alpha" in finished[0].output
    assert not any(isinstance(e, ApprovalNeeded) for e in events), "reads need no approval"
    second = fake_llm.requests[1].body["messages"]
    assert second[-2]["tool_calls"][0]["id"] == "call_1"
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "call_1" and "beta" in second[-1]["content"]
    assert isinstance(events[-1], TurnFinished) and events[-1].tool_calls == 1
    assert _record_types(chats) == [("user", None), ("assistant", None), ("tool_result", None), ("assistant", None)]


async def test_write_needs_approval_and_approve_writes(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": "out.md", "content": "# hi\n"})]))
    fake_llm.push(Reply.text("Written."))
    agent = make_agent(fake_llm, workspace, chats)
    asked: list[ApprovalNeeded] = []
    events = await run_turn(agent, "write it", answer=lambda e: asked.append(e) or Decision.APPROVE)
    assert len(asked) == 1 and asked[0].tool_kind == "edit" and "out.md" in asked[0].summary
    assert "# hi" in asked[0].detail
    assert (workspace / "out.md").read_text(encoding="utf-8") == "# hi\n"
    assert isinstance(events[-1], TurnFinished)


async def test_rejected_write_leaves_the_file_alone_and_tells_the_model(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": "out.md", "content": "x"})]))
    fake_llm.push(Reply.text("Okay, I will not."))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "write it", answer=lambda e: Decision.REJECT)
    assert not (workspace / "out.md").exists()
    finished = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert finished.status == "rejected"
    assert "rejected" in fake_llm.requests[1].body["messages"][-1]["content"]


async def test_always_stops_asking_for_the_rest_of_the_session(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": "a.md", "content": "a"})]))
    fake_llm.push(Reply.tool_calls([("c2", "write_file", {"path": "b.md", "content": "b"})]))
    fake_llm.push(Reply.text("Both written."))
    agent = make_agent(fake_llm, workspace, chats)
    asked: list[ApprovalNeeded] = []
    await run_turn(agent, "write two", answer=lambda e: asked.append(e) or Decision.ALWAYS)
    assert len(asked) == 1
    assert (workspace / "a.md").exists() and (workspace / "b.md").exists()


async def test_non_interactive_mode_refuses_what_needs_approval(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "run_shell_command", {"command": "touch made-it"})]))
    fake_llm.push(Reply.text("I could not run it."))
    agent = make_agent(fake_llm, workspace, chats, interactive=False)
    events = await run_turn(agent, "run it")
    assert not (workspace / "made-it").exists()
    finished = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert finished.status == "rejected"
    assert "--approval-mode" in finished.output


async def test_yolo_runs_shell_without_asking(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "run_shell_command", {"command": "echo hi > made-it"})]))
    fake_llm.push(Reply.text("Done."))
    agent = make_agent(fake_llm, workspace, chats, mode=ApprovalMode.YOLO, interactive=False)
    events = await run_turn(agent, "run it")
    assert (workspace / "made-it").read_text().strip() == "hi"
    assert isinstance(events[-1], TurnFinished)


async def test_plan_mode_offers_and_allows_only_read_only_tools(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": "x.md", "content": "x"})]))
    fake_llm.push(Reply.text("Plan only."))
    agent = make_agent(fake_llm, workspace, chats, mode=ApprovalMode.PLAN)
    events = await run_turn(agent, "plan it")
    offered = {t["function"]["name"] for t in fake_llm.requests[0].body["tools"]}
    assert offered == {"read_file", "list_directory", "glob", "grep_search"}
    assert not (workspace / "x.md").exists()
    finished = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert finished.status in ("error", "rejected")


async def test_deny_rule_wins(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "notes.txt"})]))
    fake_llm.push(Reply.text("Denied."))
    agent = make_agent(fake_llm, workspace, chats, deny=["read_file(notes.txt)"])
    events = await run_turn(agent, "read")
    finished = [e for e in events if isinstance(e, ToolCallFinished)][0]
    assert finished.status == "rejected" and "denied by rule" in finished.output


async def test_unknown_tool_and_invalid_arguments_are_reported_to_the_model(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "teleport", "{}"), ("c2", "read_file", ['{"path": "no'])]))
    fake_llm.push(Reply.text("Sorry."))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "go")
    results = {e.call.id: e for e in events if isinstance(e, ToolCallFinished)}
    assert "Unknown tool 'teleport'" in results["c1"].output and "read_file" in results["c1"].output
    assert "not valid JSON" in results["c2"].output
    assert isinstance(events[-1], TurnFinished)
    tool_messages = [m for m in fake_llm.requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2"]


async def test_model_error_keeps_the_user_message_and_the_session_usable(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.error(401, {"error": {"message": "invalid key"}}))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "first words")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.error_kind == "auth" and "API key" in failed.message
    loaded = load_session(agent.recorder.path)  # type: ignore[union-attr]
    assert loaded.messages[0].content == "first words"
    [notification] = [r for r in loaded.records if r.subtype == "notification"]
    assert notification.system_payload == {"level": "error", "message": failed.message, "kind": "auth"}
    fake_llm.push(Reply.text("Now it works."))
    events = await run_turn(agent, "again")
    assert isinstance(events[-1], TurnFinished)
    roles = [m["role"] for m in fake_llm.requests[-1].body["messages"]]
    assert roles == ["system", "user", "user"]


async def test_cancel_while_streaming_keeps_partial_text_and_next_turn_works(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["partial words"]))
    agent = make_agent(fake_llm, workspace, chats)
    events = []

    async def consume() -> None:
        async for event in agent.run("long question"):
            events.append(event)

    task = asyncio.create_task(consume())
    await wait_for(lambda: any(isinstance(e, TextDelta) for e in events))
    assert agent.cancel()
    await asyncio.wait_for(task, 2)
    assert isinstance(events[-1], TurnCancelled)
    assert [m.role for m in agent.history] == ["user", "assistant"]
    assert agent.history[-1].content == "partial words"
    assert ("system", "turn_cancelled") in _record_types(chats)
    fake_llm.push(Reply.text("fresh"))
    events2 = await run_turn(agent, "next")
    assert isinstance(events2[-1], TurnFinished)


async def test_cancel_while_waiting_for_approval_closes_the_tool_call(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": "x.md", "content": "x"})]))
    agent = make_agent(fake_llm, workspace, chats)
    events = []

    async def consume() -> None:
        async for event in agent.run("write"):
            events.append(event)

    task = asyncio.create_task(consume())
    await wait_for(lambda: any(isinstance(e, ApprovalNeeded) for e in events))
    agent.cancel()
    await asyncio.wait_for(task, 2)
    assert isinstance(events[-1], TurnCancelled)
    assert not (workspace / "x.md").exists()
    last = agent.history[-1]
    assert last.role == "tool" and last.tool_call_id == "c1" and "cancelled" in last.content
    fake_llm.push(Reply.text("ok"))
    assert isinstance((await run_turn(agent, "next"))[-1], TurnFinished)


async def test_dropped_stream_is_retried_and_the_ui_told_to_reset(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.drop(after=["half an"]))
    fake_llm.push(Reply.text("whole answer"))
    agent = make_agent(fake_llm, workspace, chats, retries=2)
    events = await run_turn(agent, "q")
    assert any(isinstance(e, StreamReset) for e in events)
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "whole answer"
    assert agent.history[-1].content == "whole answer"


async def test_cut_off_answer_gives_a_notice(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.text("trunc", finish_reason="length"))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "q")
    assert any(isinstance(e, Notice) and "cut off" in e.text for e in events)


async def test_request_budget_stops_a_runaway_loop(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    for i in range(3):
        fake_llm.push(Reply.tool_calls([(f"c{i}", "list_directory", {"path": "."})]))
    agent = make_agent(fake_llm, workspace, chats, limits=AgentLimits(max_requests=2))
    events = await run_turn(agent, "loop")
    assert isinstance(events[-1], TurnFailed) and "2 model requests" in events[-1].message
    assert len(fake_llm.requests) == 2


async def test_a_second_turn_while_busy_is_refused(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    from app.core.agent import AgentBusy

    fake_llm.push(Reply.stall(30, after=["x"]))
    agent = make_agent(fake_llm, workspace, chats)
    gen = agent.run("one")
    await gen.__anext__()
    with pytest.raises(AgentBusy):
        await agent.run("two").__anext__()
    agent.cancel()
    async for _ in gen:
        pass


async def test_a_finished_turn_never_cancels_the_next_one(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    """A consumer that is still draining turn 1 while turn 2 starts must not cancel turn 2."""
    fake_llm.push(Reply.text("one"))
    fake_llm.push(Reply.text("two", delay=0.05))
    agent = make_agent(fake_llm, workspace, chats)
    first = agent.run("first")
    first_events = [await first.__anext__()]
    await wait_for(lambda: not agent.busy)
    second_events: list = []

    async def consume_second() -> None:
        async for event in agent.run("second"):
            second_events.append(event)

    task = asyncio.create_task(consume_second())
    await asyncio.sleep(0)
    async for event in first:  # drain the rest of turn 1 while turn 2 runs
        first_events.append(event)
    await asyncio.wait_for(task, 5)
    assert isinstance(first_events[-1], TurnFinished)
    assert isinstance(second_events[-1], TurnFinished) and second_events[-1].result == "two"


async def test_resend_after_a_failed_request_sends_the_words_once_and_records_them_once(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(Reply.error(503, {"error": {"message": "overloaded"}}), Reply.text("second time lucky"))
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "say hi")
    assert kinds(events)[-1] == "turn_failed" and agent.can_resend()
    events = [e async for e in agent.resend()]
    assert kinds(events)[-1] == "turn_finished"
    assert [m["role"] for m in fake_llm.requests[-1].messages] == ["system", "user"]
    assert [m.role for m in agent.history] == ["user", "assistant"]
    loaded = load_session(agent.recorder.path)  # type: ignore[union-attr]
    assert [m.content for m in loaded.messages if m.role == "user"] == ["say hi"]
    assert not agent.can_resend(), "answered: nothing left to resend"
    with pytest.raises(ValueError):
        [e async for e in agent.resend()]


async def test_resend_after_a_tool_round_goes_on_from_its_results(fake_llm: FakeOpenAIServer, workspace: Path, chats: Path) -> None:
    fake_llm.push(
        Reply.tool_calls([("c1", "read_file", {"path": "notes.txt"})]),
        Reply.error(500, {"error": {"message": "boom"}}),
        Reply.text("notes say alpha, beta"),
    )
    agent = make_agent(fake_llm, workspace, chats)
    events = await run_turn(agent, "read the notes")
    assert kinds(events)[-1] == "turn_failed"
    assert agent.history[-1].role == "tool" and agent.can_resend()
    events = [e async for e in agent.resend()]
    assert kinds(events)[-1] == "turn_finished"
    assert [m["role"] for m in fake_llm.requests[-1].messages] == ["system", "user", "assistant", "tool"]
    assert len(fake_llm.requests) == 3, "the tool is not run again"
