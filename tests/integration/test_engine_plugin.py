"""The example engine, installed as a real package, selected by settings, fenced and committed once."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.config import Settings
from app.core.events import TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "last_n_turns"


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    target = tmp_path_factory.mktemp("site")
    # Built from a copy: setuptools leaves build/ and *.egg-info beside the sources it builds.
    source = tmp_path_factory.mktemp("example") / EXAMPLE.name
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(target), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    yield target
    sys.path.remove(str(target))
    sys.modules.pop("agentctx_last_n_turns", None)


def _settings(server: FakeOpenAIServer, engine: str = "last-n-turns", turns: str = "2") -> Settings:
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    settings.model.max_retries = 1
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False  # its side query would take a reply scripted for the conversation
    settings.context.engine = engine
    settings.context.engine_options = {"turns": turns}
    return settings


def _committed(repo: Path) -> dict:
    store = Paths.for_cwd(repo).project_state_dir / "engines" / "last-n-turns" / "committed.json"
    return json.loads(store.read_text()) if store.exists() else {}


async def test_the_installed_engine_is_selected_and_sees_only_the_last_turns(installed_example, fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    assert runtime.assembler.ledger is not None and runtime.assembler.ledger.engine.info.id == "last-n-turns"
    assert not any("quarantined" in w for w in runtime.warnings)
    for i in range(4):
        fake_llm.push(Reply.text(f"answer {i}"))
        events = [e async for e in runtime.agent.run(f"question {i}")]
        assert isinstance(events[-1], TurnFinished)
    sent = [m["content"] for m in fake_llm.requests[-1].conversation]
    assert sent == ["question 1", "answer 1", "question 2", "answer 2", "question 3"], "two earlier turns, then the current one"
    assert "Only the last 2 user turns" in fake_llm.requests[-1].messages[0]["content"]
    assert len(_committed(repo)) == 4
    await runtime.aclose()


async def test_a_retried_request_commits_exactly_one_turn(installed_example, fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    runtime.agent.retry.base_delay = 0.01
    fake_llm.push(Reply.error(503), Reply.text("made it on the second try"))
    events = [e async for e in runtime.agent.run("hello")]
    assert isinstance(events[-1], TurnFinished) and len(fake_llm.requests) == 2
    committed = _committed(repo)
    assert len(committed) == 1
    [turn] = committed.values()
    assert [m["content"] for m in turn] == ["hello", "made it on the second try"]
    await runtime.aclose()


async def test_a_cancelled_turn_is_not_committed(installed_example, fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    import asyncio

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    fake_llm.push(Reply.stall(30, after=["partial"]))
    events = []

    async def consume() -> None:
        async for event in runtime.agent.run("long one"):
            events.append(event)

    task = asyncio.create_task(consume())
    while not any(e.kind == "text_delta" for e in events):
        await asyncio.sleep(0.01)
    runtime.agent.cancel()
    await asyncio.wait_for(task, 5)
    assert _committed(repo) == {}
    await runtime.aclose()


async def test_an_unknown_engine_falls_back_visibly(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    runtime = build_runtime(_settings(fake_llm, engine="does-not-exist"), Paths.for_cwd(repo))
    assert any("Context engine 'does-not-exist' is quarantined" in w for w in runtime.warnings)
    fake_llm.push(Reply.text("fine"))
    events = [e async for e in runtime.agent.run("hi")]
    assert isinstance(events[-1], TurnFinished)
    await runtime.aclose()


async def test_a_quarantine_during_a_turn_is_told_to_the_person_and_recorded(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    from app.core.events import Notice
    from tests.integration.helpers import make_agent, run_turn

    workspace = tmp_path / "ws"
    workspace.mkdir()
    agent = make_agent(fake_llm, workspace, tmp_path / "chats")
    text = "Context engine 'flaky' is quarantined for this process and the built-in engine is used: its assemble() raised."
    pending = [text]
    agent.assembler.take_notices = lambda: [pending.pop()] if pending else []  # type: ignore[attr-defined]
    fake_llm.push(Reply.text("fine"))
    events = await run_turn(agent, "hello")
    assert [e.text for e in events if isinstance(e, Notice)] == [text]
    assert text in agent.recorder.path.read_text(encoding="utf-8")


def test_building_the_example_leaves_the_checkout_clean(installed_example) -> None:  # type: ignore[no-untyped-def]
    leftovers = [p.name for p in EXAMPLE.iterdir() if p.name == "build" or p.name.endswith(".egg-info")]
    assert leftovers == []
    assert (installed_example / "agentctx_last_n_turns").is_dir()
