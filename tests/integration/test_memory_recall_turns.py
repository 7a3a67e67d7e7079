"""Recall on every turn, through the local fake server: a plain question (no tool call) that a stored
memory answers carries that memory in its request, with the model selector off and on, in the TUI's
runtime and in ``-p`` (a real subprocess). And ``memory.headless_background`` drains extraction."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import yaml

from app.context.memory import MemoryScope, memory_paths
from app.context.memory.store import MemoryStore
from app.context.report import build_report, render_detail
from app.core.events import TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply
from tests.integration.memory_fixtures import memory_settings, repo  # noqa: F401 (repo is a fixture)

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "which database do the integration tests use?"
SELECTOR = "You choose which saved memories"


def _store_memories(paths: Paths) -> tuple[Path, Path]:
    store = MemoryStore(memory_paths(paths))
    db = store.write(
        MemoryScope.PROJECT, "feedback", name="integration tests use a real database",
        description="integration tests hit the docker compose postgres, never mocks", body="Use the docker compose postgres database; never mock it.",
    )
    rota = store.write(
        MemoryScope.PROJECT, "reference", name="on-call rota", description="where the on-call rota lives", body="The rota is in the ops wiki.",
    )
    return db, rota


def _is_selector(request: RecordedRequest) -> bool:
    system = request.messages[0]["content"] if request.messages else ""
    return isinstance(system, str) and system.startswith(SELECTOR)


def _recalled(request: RecordedRequest) -> list[str]:
    return [m["content"] for m in request.messages if m["role"] == "user" and "## Relevant memory" in str(m["content"])]


def _main_requests(server: FakeOpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests if not _is_selector(r)]


async def _turn(runtime, prompt: str) -> list:  # type: ignore[no-untyped-def]
    return [event async for event in runtime.agent.run(prompt)]


# -- the TUI's path (the runtime, interactive) ----------------------------------------------------------


async def test_a_plain_question_carries_its_memory_selector_off(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False), paths)
    fake_llm.push(Reply.text("The docker compose postgres."))
    events = await _turn(runtime, QUESTION)
    assert isinstance(events[-1], TurnFinished)
    [request] = fake_llm.requests  # one request: a plain turn, no tool call
    [reminder] = _recalled(request)
    assert "Use the docker compose postgres database" in reminder
    assert "Recalled by keyword ranking (BM25F)." in reminder
    assert "ops wiki" not in reminder  # the unrelated memory stays out
    assert [d.how for d in runtime.memory.recalled] == ["heuristic"]
    # /context detail says what was recalled and by which path.
    detail = render_detail(build_report(runtime.assembler.last_request, source="test", session_id=runtime.session_id))
    line = next(text for text in detail.splitlines() if "integration tests use a real database" in text)
    assert "feedback/integration-tests-use-a-real-database.md" in line and "(recalled by keyword ranking (BM25F))" in line
    await runtime.aclose()


async def test_selector_on_the_first_request_carries_the_local_pick_and_a_late_selector_joins_the_next(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False, recall_model=True), paths)
    main_replies = [
        Reply.tool_calls([("c1", "list_directory", {"path": "."})], delay=0.6),
        Reply.text("Postgres; ask the on-call person if it is down."),
    ]

    def respond(request: RecordedRequest) -> Reply:
        if _is_selector(request):
            ids = [line.split()[1] for line in request.messages[-1]["content"].splitlines() if "on-call rota" in line]
            return Reply.text(json.dumps({"selected_memories": ids}), delay=0.3)
        return main_replies.pop(0)

    fake_llm.responder = respond
    events = await _turn(runtime, QUESTION)
    assert isinstance(events[-1], TurnFinished)
    first, second = _main_requests(fake_llm)
    [local] = _recalled(first)
    assert "docker compose postgres" in local and "Recalled by keyword ranking" in local
    # The selector settled while the first reply streamed: its pick joins the next request of the turn.
    late = [text for text in _recalled(second) if "Recalled by the memory selector model." in text]
    assert late and "ops wiki" in late[0] and "docker compose postgres" not in late[0]
    assert [(d.how, d.request) for d in runtime.memory.recalled] == [("heuristic", 1), ("model", 2)]
    await runtime.aclose()


async def test_a_selector_that_settled_before_the_first_request_is_used_there(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    db, _ = _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False, recall_model=True), paths, interactive=False)

    def respond(request: RecordedRequest) -> Reply:
        if _is_selector(request):
            ids = [line.split()[1] for line in request.messages[-1]["content"].splitlines() if "real database" in line]
            return Reply.text(json.dumps({"selected_memories": ids}), delay=0.3)
        return Reply.text("Postgres.")

    fake_llm.responder = respond
    await _turn(runtime, QUESTION)
    [main] = _main_requests(fake_llm)
    [reminder] = _recalled(main)
    assert "Recalled by the memory selector model." in reminder and "docker compose postgres" in reminder
    assert str(db) not in json.dumps([r.body for r in fake_llm.requests if _is_selector(r)])  # short ids, not paths
    await runtime.aclose()


async def test_a_selector_that_settles_after_its_turn_is_carried_into_the_next(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False, recall_model=True), paths)
    settled = asyncio.Event()

    def respond(request: RecordedRequest) -> Reply:
        if _is_selector(request):
            ids = [line.split()[1] for line in request.messages[-1]["content"].splitlines() if "on-call rota" in line]
            return Reply.text(json.dumps({"selected_memories": ids}), delay=0.5)
        return Reply.text("Postgres.")

    fake_llm.responder = respond
    await _turn(runtime, QUESTION)  # answered before the selector settles
    first = _main_requests(fake_llm)[0]
    assert all("ops wiki" not in text for text in _recalled(first))
    while runtime.memory._recall is not None and runtime.memory._recall.selector_pending:
        await asyncio.sleep(0.05)
    settled.set()
    await _turn(runtime, "thanks, anything else?")
    second = _main_requests(fake_llm)[1]
    carried = [text for text in _recalled(second) if "ops wiki" in text]
    assert carried, "the late pick joins the next turn's first request"
    await runtime.aclose()


# -- -p (a real subprocess) -------------------------------------------------------------------------------


def _cli(args: list[str], *, cwd: Path, server: FakeOpenAIServer) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test", OPENAI_MODEL="fake-model")
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, env=env, input="", capture_output=True, text=True, timeout=60)


def _user_settings(paths: Paths, memory: dict) -> None:
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    # recall_wait_seconds: the first request waits for local recall only until it settles; a loaded
    # test machine gets more than the 150 ms default, so the test does not depend on the clock.
    paths.user_settings_file.write_text(yaml.safe_dump({"memory": {"recall_wait_seconds": 10, **memory}}), encoding="utf-8")


def test_p_mode_plain_question_carries_its_memory_selector_off(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    _user_settings(paths, {"recall_model": False})
    fake_llm.push(Reply.text("The docker compose postgres."))
    result = _cli(["-p", QUESTION], cwd=repo, server=fake_llm)
    assert result.returncode == 0, result.stderr
    [request] = fake_llm.requests
    [reminder] = _recalled(request)
    assert "Use the docker compose postgres database" in reminder and "Recalled by keyword ranking" in reminder


def test_p_mode_waits_for_the_selector_within_its_deadline(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    _user_settings(paths, {"recall_model": True, "recall_timeout": 10})
    lock = threading.Lock()

    def respond(request: RecordedRequest) -> Reply:
        if _is_selector(request):
            ids = [line.split()[1] for line in request.messages[-1]["content"].splitlines() if "on-call rota" in line]
            return Reply.text(json.dumps({"selected_memories": ids}), delay=0.5)
        with lock:
            return Reply.text("Ask the on-call person.")

    fake_llm.responder = respond
    result = _cli(["-p", "who do I page when the database is down?"], cwd=repo, server=fake_llm)
    assert result.returncode == 0, result.stderr
    [main] = _main_requests(fake_llm)
    [reminder] = _recalled(main)
    assert "Recalled by the memory selector model." in reminder and "ops wiki" in reminder


def test_p_mode_with_headless_background_drains_extraction(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _user_settings(paths, {"recall_model": False, "dream": False, "headless_background": True})
    extractions: list[RecordedRequest] = []

    def respond(request: RecordedRequest) -> Reply:
        if "You keep the long-term memory" in str(request.messages[0]["content"]):
            extractions.append(request)
            return Reply.text("Nothing worth saving.", delay=0.3)
        return Reply.text("Noted: deploys go out on Tuesdays.")

    fake_llm.responder = respond
    result = _cli(["-p", "remember that deploys go out on Tuesdays"], cwd=repo, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert len(extractions) == 1 and "deploys go out on Tuesdays" in json.dumps(extractions[0].body["messages"][-1])
    assert "memory: waiting for memory extraction to finish before exiting (at most 125 s; memory.headless_background is on)" in result.stderr
    assert "memory: extraction done (nothing worth saving)" in result.stderr


def test_p_mode_without_headless_background_sends_no_extraction(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _user_settings(paths, {"recall_model": False, "dream": False})
    fake_llm.responder = lambda request: Reply.text("Noted.")
    result = _cli(["-p", "remember that deploys go out on Tuesdays"], cwd=repo, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert len(fake_llm.requests) == 1 and "memory:" not in result.stderr
