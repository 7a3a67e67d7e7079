"""The memory loop in whole turns: extraction writes, a later session recalls, team memory is guarded,
dreaming consolidates behind its gates. The fake server plays the model and the memory agents."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path


from app.context.memory import MemoryScope, read_meta
from app.core.events import ApprovalNeeded, Decision, ToolCallFinished, TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.memory_fixtures import MEMORY, memory_settings, repo  # noqa: F401 (repo is a fixture)



async def _turn(runtime, prompt: str, answer=None) -> list:  # type: ignore[no-untyped-def]
    events = []
    async for event in runtime.agent.run(prompt):
        events.append(event)
        if isinstance(event, ApprovalNeeded) and event.future is not None:
            event.future.set_result(answer(event) if answer else Decision.APPROVE)
    return events


async def test_extraction_saves_a_memory_after_the_turn(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    target = runtime.memory.mem.project_root / "feedback" / "no-mocks.md"
    fake_llm.push(Reply.text("Understood: real database only."))
    fake_llm.push(Reply.tool_calls([("m1", "write_file", {"path": str(target), "content": MEMORY})]), Reply.text("Saved one memory."))
    events = await _turn(runtime, "please never mock the database in integration tests, we got burned last month")
    assert isinstance(events[-1], TurnFinished)
    await runtime.memory.drain(10)
    assert target.read_text(encoding="utf-8") == MEMORY
    extractor = fake_llm.requests[1].body
    assert "You keep the long-term memory" in extractor["messages"][0]["content"]
    assert "never mock the database" in extractor["messages"][-1]["content"]
    offered = {t["function"]["name"] for t in extractor["tools"]}
    assert offered == {"read_file", "list_directory", "glob", "grep_search", "run_shell_command", "write_file", "edit"}
    index = runtime.memory.mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    assert "no mocks in db tests" in index and "feedback/no-mocks.md" in index
    assert runtime.memory.extraction.state == "done" and "saved 1 memory" in runtime.memory.extraction.detail
    cursor = json.loads(runtime.memory.mem.cursor_file.read_text())
    assert cursor["sessionId"] == runtime.session_id and cursor["processedOffset"] == len(runtime.agent.history)
    assert read_meta(runtime.memory.mem.meta_file).last_extraction_status == "updated"
    await runtime.aclose()


async def test_the_extraction_agent_cannot_write_outside_memory(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    fake_llm.push(Reply.text("ok"))
    fake_llm.push(
        Reply.tool_calls([("m1", "write_file", {"path": str(repo / "evil.md"), "content": "x"}), ("m2", "run_shell_command", {"command": "rm -rf /tmp/x"})]),
        Reply.text("done"),
    )
    await _turn(runtime, "remember that I like tabs")
    await runtime.memory.drain(10)
    assert not (repo / "evil.md").exists()
    results = [m for m in fake_llm.requests[-1].messages if m["role"] == "tool"]
    assert all("Permission denied" in m["content"] or "refused" in m["content"].lower() for m in results), results
    await runtime.aclose()


async def test_a_second_session_recalls_what_the_first_saved(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    first = build_runtime(memory_settings(fake_llm, extraction=False), Paths.for_cwd(repo))
    path = first.memory.store.write(MemoryScope.PROJECT, "feedback", name="no mocks in db tests", description="integration tests must hit a real database, never mocks", body="Never mock the database.")
    await first.aclose()
    second = build_runtime(memory_settings(fake_llm, extraction=False), Paths.for_cwd(repo))
    # Recall is never waited for: a slowly streamed first reply gives it time to settle before the second request.
    fake_llm.push(Reply.tool_calls([("c1", "list_directory", {"path": "."})], delay=0.25), Reply.text("I will use the real database."))
    await _turn(second, "how should I write the database integration tests?")
    recalled = [m["content"] for m in fake_llm.requests[-1].messages if m["role"] == "user" and "## Relevant memory" in m["content"]]
    assert recalled and "Never mock the database." in recalled[0] and path.exists()
    await second.aclose()


async def test_no_extraction_when_the_agent_saved_a_memory_itself(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(memory_settings(fake_llm), Paths.for_cwd(repo))
    target = runtime.memory.mem.user_root / "user" / "tabs.md"
    fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": str(target), "content": MEMORY.replace("feedback", "user")})]), Reply.text("Saved."))
    events = await _turn(runtime, "remember: I prefer tabs")
    assert not any(isinstance(e, ApprovalNeeded) for e in events), "memory writes need no approval"
    assert target.exists()
    await runtime.memory.drain(5)
    assert len(fake_llm.requests) == 2, "no extraction request"
    assert runtime.memory.extraction.state == "skipped"
    await runtime.aclose()


async def test_team_memory_writes_always_ask_and_secrets_are_refused(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    settings = memory_settings(fake_llm, extraction=False)
    settings.approval_mode = "yolo"
    runtime = build_runtime(settings, Paths.for_cwd(repo))
    team = ".qwen/team-memory/project/deploy.md"
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    fake_llm.push(
        Reply.tool_calls([("t1", "write_file", {"path": team, "content": f"---\nname: deploy\ndescription: deploy token\ntype: project\n---\ntoken {secret}\n"})]),
        Reply.tool_calls([("t2", "write_file", {"path": team, "content": MEMORY.replace("feedback", "project")})]),
        Reply.text("done"),
    )
    asked: list[ApprovalNeeded] = []
    events = await _turn(runtime, "share these with the team", answer=lambda e: asked.append(e) or Decision.APPROVE)
    results = {e.call.id: e for e in events if isinstance(e, ToolCallFinished)}
    assert results["t1"].status == "rejected" and "looks like a secret" in results["t1"].output
    assert secret not in results["t1"].output
    assert [e.call.id for e in asked] == ["t2"], "team writes ask even in yolo mode"
    assert (repo / team).read_text(encoding="utf-8").startswith("---\nname: no mocks")
    await runtime.aclose()


async def test_dream_runs_behind_its_gates_and_releases_the_lock(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    settings = memory_settings(fake_llm, extraction=False, dream=True)
    paths = Paths.for_cwd(repo)
    runtime = build_runtime(settings, paths)
    chats = runtime.memory.mem.chats_dir
    chats.mkdir(parents=True, exist_ok=True)
    for i in range(5):
        (chats / f"{i:08d}-0000-4000-8000-000000000000.jsonl").write_text("{}\n")
    fake_llm.push(Reply.text("ok"))
    fake_llm.push(Reply.tool_calls([("d1", "list_directory", {"path": str(runtime.memory.mem.project_root)})]), Reply.text("Nothing to merge."))
    await _turn(runtime, "hello")
    await runtime.memory.drain(10)
    assert runtime.memory.dream.state == "done"
    assert "tidy" in fake_llm.requests[1].body["messages"][0]["content"]
    assert not runtime.memory.mem.lock_file.exists()
    meta = read_meta(runtime.memory.mem.meta_file)
    assert meta.last_dream_session_id == runtime.session_id
    runtime.memory.check_dream()
    assert runtime.memory.dream.state == "skipped", "the same session does not dream twice"
    await runtime.aclose()


async def test_a_stale_lock_of_a_dead_process_is_cleared(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(memory_settings(fake_llm, extraction=False, dream=True), Paths.for_cwd(repo))
    lock = runtime.memory.mem.lock_file
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("999999999")
    old = time.time() - 2 * 3600
    os.utime(lock, (old, old))
    fake_llm.push(Reply.text("Tidy already."))
    assert runtime.memory.dream_now()
    await runtime.memory.drain(10)
    assert runtime.memory.dream.state in ("done", "skipped")
    await runtime.aclose()


async def test_forget_selects_then_deletes_only_what_is_confirmed(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(memory_settings(fake_llm, extraction=False), Paths.for_cwd(repo))
    runtime.memory.provider = None  # heuristic selection
    keep = runtime.memory.store.write(MemoryScope.PROJECT, "project", name="release freeze", description="code freeze before the March release", body="Freeze on 2026-03-01.")
    drop = runtime.memory.store.write(MemoryScope.PROJECT, "feedback", name="tabs", description="the user prefers tabs over spaces", body="Use tabs.")
    selection = await runtime.memory.select_forget("tabs over spaces")
    assert drop in [Path(p) for p in selection.paths] and keep not in [Path(p) for p in selection.paths]
    assert drop.exists(), "selecting deletes nothing"
    runtime.memory.forget([drop])
    assert not drop.exists() and keep.exists()
    assert "tabs" not in runtime.memory.mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    await runtime.aclose()
