"""The memory agents' limits and scheduling in whole turns against the scripted server: the spec's
request and time budgets (the time one enforced over the whole run, a stalled stream included), a
newer extraction request superseding an older queued one, and a second session recalling what the
first one's extraction agent saved."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from app.context.memory import MemoryScope, read_meta
from app.context.memory import agents as agents_module
from app.context.memory.agents import DREAM_BUDGET, EXTRACTION_BUDGET, AgentBudget
from app.core.events import ApprovalNeeded, Decision, TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply
from tests.integration.memory_fixtures import MEMORY, memory_settings, repo  # noqa: F401 (repo is a fixture)

MEMORY_AGENT = "You keep the long-term memory"  # both memory agents' system prompts start so


async def _turn(runtime, prompt: str) -> list:  # type: ignore[no-untyped-def]
    events = []
    async for event in runtime.agent.run(prompt):
        events.append(event)
        if isinstance(event, ApprovalNeeded) and event.future is not None:
            event.future.set_result(Decision.APPROVE)
    return events


def _system(request: RecordedRequest) -> str:
    return str(request.body["messages"][0]["content"])


def _is_memory_agent(request: RecordedRequest) -> bool:
    return _system(request).startswith(MEMORY_AGENT)


def _is_extractor(request: RecordedRequest) -> bool:
    return _is_memory_agent(request) and "time to tidy" not in _system(request)


# -- 1. the time budget covers the whole run ----------------------------------------------------------


async def test_a_stalled_extraction_stops_at_its_time_budget(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agents_module, "EXTRACTION_BUDGET", AgentBudget(max_requests=5, seconds=1.0))
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    target = runtime.memory.mem.project_root / "feedback" / "no-mocks.md"
    seen: list[str] = []
    runtime.status.connect(lambda status: seen.append(runtime.memory.extraction.state) if status.source == "memory" else None)
    fake_llm.push(Reply.text("Understood: real database only."))
    # The extraction agent saves one memory, then its next answer stalls mid-stream far past the budget.
    fake_llm.push(Reply.tool_calls([("m1", "write_file", {"path": str(target), "content": MEMORY})]), Reply.stall(8.0, after=["Let me also "]))
    events = await _turn(runtime, "please never mock the database in integration tests, we got burned last month")
    assert isinstance(events[-1], TurnFinished)
    started = time.monotonic()
    await runtime.memory.drain(15)
    assert time.monotonic() - started < 5, "the stalled stream was not cut at the 1 s budget"
    state = runtime.memory.extraction
    assert state.state == "failed" and seen[-1] == "failed"
    assert "timed out" in state.detail and "1 s" in state.detail and "1 memory saved before it" in state.detail, state.detail
    assert state.last_run_at is not None
    assert not runtime.memory.busy
    # What was saved before the cut is whole and indexed; no temporary file is left behind.
    assert target.read_text(encoding="utf-8") == MEMORY
    assert "feedback/no-mocks.md" in runtime.memory.mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    assert sorted(p.name for p in target.parent.iterdir()) == ["no-mocks.md"]
    # The run did not complete: the cursor and meta.json stay put, so the same part is read again next time.
    assert not runtime.memory.mem.cursor_file.exists()
    assert read_meta(runtime.memory.mem.meta_file).last_extraction_at is None
    await runtime.aclose()


async def test_a_stalled_dream_stops_at_its_time_budget_and_releases_the_lock(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agents_module, "DREAM_BUDGET", AgentBudget(max_requests=8, seconds=1.0))
    runtime = build_runtime(memory_settings(fake_llm, extraction=False), Paths.for_cwd(repo))
    fake_llm.push(Reply.stall(8.0, after=["Reading the memories"]))
    started = time.monotonic()
    assert runtime.memory.dream_now()
    await runtime.memory.drain(15)
    assert time.monotonic() - started < 5, "the stalled stream was not cut at the 1 s budget"
    assert runtime.memory.dream.state == "failed" and "timed out" in runtime.memory.dream.detail, runtime.memory.dream.detail
    assert not runtime.memory.mem.lock_file.exists()
    meta = read_meta(runtime.memory.mem.meta_file)
    assert meta.last_dream_status == "failed" and meta.last_dream_session_id == runtime.session_id
    await runtime.aclose()


# -- 2. a newer request supersedes the older queued one -----------------------------------------------


async def test_a_newer_extraction_request_supersedes_the_older_queued_one(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    release = threading.Event()
    extractions: list[RecordedRequest] = []

    def respond(request: RecordedRequest) -> Reply:
        if not _is_extractor(request):
            return Reply.text("Noted.")
        extractions.append(request)
        if len(extractions) == 1:
            release.wait(10)  # the first extraction keeps running until the test lets it go
        return Reply.text("Nothing worth saving.")

    fake_llm.responder = respond
    await _turn(runtime, "alpha: the staging database is called pelican")
    await _wait(lambda: len(extractions) == 1)
    assert runtime.memory.extraction.state == "running"
    await _turn(runtime, "bravo: deploys go out on Tuesdays")
    assert runtime.memory.extraction.state == "queued"
    await _turn(runtime, "charlie: the on-call rota lives in the wiki")
    assert runtime.memory.extraction.state == "queued"
    release.set()
    await runtime.memory.drain(10)
    assert len(extractions) == 2, "the older queued request must not run as well"
    first, newest = (json.dumps(r.body["messages"][-1]["content"]) for r in extractions)
    assert "alpha" in first and "bravo" not in first
    assert "charlie" in newest, "the newest queued request is the one that ran"
    assert runtime.memory.extraction.state == "done"
    await runtime.aclose()


# -- 3. the spec's limits -------------------------------------------------------------------------------


def test_the_budgets_are_the_specs() -> None:
    assert EXTRACTION_BUDGET == AgentBudget(max_requests=5, seconds=120.0)  # 5 turns, 2 minutes
    assert DREAM_BUDGET == AgentBudget(max_requests=8, seconds=300.0)  # 8 turns, 5 minutes


async def test_the_agents_are_built_and_run_with_the_specs_limits(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[dict] = []
    timed: list[float] = []
    build, run = agents_module.build_memory_agent, agents_module.run_memory_agent

    def spy_build(*args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(kwargs)
        return build(*args, **kwargs)

    async def spy_run(agent, prompt, seconds, **kwargs):  # type: ignore[no-untyped-def]
        timed.append(seconds)
        return await run(agent, prompt, seconds, **kwargs)

    monkeypatch.setattr(agents_module, "build_memory_agent", spy_build)
    monkeypatch.setattr(agents_module, "run_memory_agent", spy_run)
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    fake_llm.push(Reply.text("ok"), Reply.text("Nothing worth saving."))
    await _turn(runtime, "remember that the build uses uv")
    await runtime.memory.drain(10)
    fake_llm.push(Reply.text("Tidy already."))
    assert runtime.memory.dream_now()
    await runtime.memory.drain(10)
    assert [(k["max_requests"], k["time_budget"]) for k in built] == [(5, 120.0), (8, 300.0)]
    assert timed == [120.0, 300.0], "the wall-clock limit of the whole run is the same budget"
    await runtime.aclose()


@pytest.mark.parametrize(("task", "limit"), [("extraction", 5), ("dream", 8)])
async def test_an_agent_that_keeps_calling_tools_stops_at_its_request_limit(fake_llm: FakeOpenAIServer, repo: Path, task: str, limit: int) -> None:
    runtime = build_runtime(memory_settings(fake_llm, extraction=task == "extraction"), Paths.for_cwd(repo))
    root = runtime.memory.mem.project_root
    agent_requests: list[RecordedRequest] = []

    def respond(request: RecordedRequest) -> Reply:
        if not _is_memory_agent(request):
            return Reply.text("ok")
        agent_requests.append(request)
        return Reply.tool_calls([(None, "list_directory", {"path": str(root)})])

    fake_llm.responder = respond
    if task == "extraction":
        await _turn(runtime, "remember that the build uses uv")
    else:
        assert runtime.memory.dream_now()
    await runtime.memory.drain(20)
    state = getattr(runtime.memory, task)
    assert len(agent_requests) == limit
    assert state.state == "failed" and f"the limit is {limit}" in state.detail, state.detail
    await runtime.aclose()


# -- 4. a second session recalls what the first one's extraction saved --------------------------------


async def test_a_second_session_recalls_what_the_first_sessions_extraction_saved(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    first = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    target = first.memory.mem.project_root / "feedback" / "no-mocks.md"
    fake_llm.push(Reply.text("Understood: real database only."))
    fake_llm.push(Reply.tool_calls([("m1", "write_file", {"path": str(target), "content": MEMORY})]), Reply.text("Saved one memory."))
    await _turn(first, "please never mock the database in integration tests, we got burned last month")
    await first.memory.drain(10)
    assert first.memory.extraction.state == "done", first.memory.extraction.detail
    assert _is_extractor(fake_llm.requests[1]) and fake_llm.requests[1].body["messages"][-1]["content"].count("never mock the database")
    await first.aclose()
    before = len(fake_llm.requests)

    second = build_runtime(memory_settings(fake_llm, extraction=False), Paths.for_cwd(repo))
    assert second.session_id != first.session_id
    # Recall is never waited for: a slowly streamed first reply gives it time to settle before the next request.
    fake_llm.push(Reply.tool_calls([("c1", "list_directory", {"path": "."})], delay=0.25), Reply.text("I will use the real database."))
    events = await _turn(second, "how should I write the database integration tests?")
    assert isinstance(events[-1], TurnFinished)
    reminders = [
        m["content"]
        for request in fake_llm.requests[before:]
        for m in request.body["messages"]
        if m["role"] == "user" and "<system-reminder>" in str(m["content"]) and "## Relevant memory" in str(m["content"])
    ]
    assert reminders, "session 2's request carried no recall reminder"
    assert "Never mock the database in integration tests." in reminders[0]  # the body, which the index never shows
    assert str(target) in reminders[0] or "no-mocks.md" in reminders[0]
    await second.aclose()


async def _wait(predicate, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "condition not met in time"
        await asyncio.sleep(0.01)
