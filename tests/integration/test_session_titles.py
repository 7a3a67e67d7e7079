"""Automatic titles through the real runtime and the scripted server: when they are asked for, and when not."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.core.events import TurnFinished
from app.core.session.listing import list_sessions
from app.core.session.resume import load_session
from app.core.session.titles import TITLE_SYSTEM_PROMPT
from app.paths import Paths
from app.runtime import Runtime, build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _settings(server: FakeOpenAIServer) -> Settings:
    settings = Settings()
    settings.model.base_url = server.base_url
    settings.model.name = "fake-model"
    settings.model.api_key = "k"
    settings.model.max_retries = 0
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    return settings


def _runtime(server: FakeOpenAIServer, tmp_path: Path, *, settings: Settings | None = None, **kwargs) -> Runtime:  # type: ignore[no-untyped-def]
    return build_runtime(settings or _settings(server), Paths.for_cwd(tmp_path), **kwargs)


async def _turn(runtime: Runtime, prompt: str) -> None:
    assert runtime.agent is not None
    events = [event async for event in runtime.agent.run(prompt)]
    assert isinstance(events[-1], TurnFinished), events[-1]
    if runtime.titles is not None:  # a headless runtime has none at all
        await runtime.titles.drain(5)


def _title_requests(server: FakeOpenAIServer) -> list:  # type: ignore[type-arg]
    return [r for r in server.requests if r.messages and r.messages[0].get("content") == TITLE_SYSTEM_PROMPT]


async def test_the_first_exchange_is_titled_once_in_the_background(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    runtime = _runtime(fake_llm, tmp_path)
    fake_llm.push(Reply.text("The parser splits on whitespace."), Reply.text('"Explain the parser."'))
    await _turn(runtime, "how does the parser work?")

    [request] = _title_requests(fake_llm)
    assert "Person: how does the parser work?" in request.messages[-1]["content"]
    assert "Assistant: The parser splits on whitespace." in request.messages[-1]["content"]
    assert "tools" not in request.body
    # The turn's own request came first: the title never holds up an answer.
    assert fake_llm.requests[0] is not request

    fake_llm.push(Reply.text("Yes."))
    await _turn(runtime, "and tokens?")
    assert len(_title_requests(fake_llm)) == 1, "no second title after a success"
    assert len(fake_llm.requests) == 3

    loaded = load_session(runtime.recorder.path)
    assert (loaded.title, loaded.title_source) == ("Explain the parser", "auto")
    assert list_sessions(runtime.paths.chats_dir)[0].title == "Explain the parser"
    await runtime.aclose()


async def test_failures_are_retried_after_later_turns_up_to_the_cap(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    runtime = _runtime(fake_llm, tmp_path)
    for n in range(3):
        fake_llm.push(Reply.text(f"answer {n}"), Reply.error(500, {"error": {"message": "overloaded"}}))
        await _turn(runtime, f"question {n}")
    assert runtime.titles is not None and runtime.titles.attempts == 3
    assert "overloaded" in runtime.titles.last_problem
    for n in range(3, 5):
        fake_llm.push(Reply.text(f"answer {n}"))  # were a title asked for, it would take the next turn's reply
        await _turn(runtime, f"question {n}")
    assert len(_title_requests(fake_llm)) == 3 and len(fake_llm.requests) == 3 * 2 + 2
    assert load_session(runtime.recorder.path).title is None
    await runtime.aclose()


async def test_an_empty_answer_counts_as_a_failed_attempt(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    runtime = _runtime(fake_llm, tmp_path)
    fake_llm.push(Reply.text("answer"), Reply.text("   "))
    await _turn(runtime, "question")
    fake_llm.push(Reply.text("answer"), Reply.text("Second try"))
    await _turn(runtime, "question two")
    assert load_session(runtime.recorder.path).title == "Second try"
    await runtime.aclose()


async def test_a_manual_title_stops_automatic_ones(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    runtime = _runtime(fake_llm, tmp_path)
    runtime.recorder.append_title("My name for it", "manual")
    fake_llm.push(Reply.text("answer"))
    await _turn(runtime, "question")
    assert _title_requests(fake_llm) == []
    await runtime.aclose()


async def test_a_resumed_titled_session_is_not_titled_again(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    first = _runtime(fake_llm, tmp_path)
    fake_llm.push(Reply.text("answer"), Reply.text("Session title"))
    await _turn(first, "question")
    await first.aclose()

    again = _runtime(fake_llm, tmp_path, continue_latest=True)
    assert again.recorder.title == "Session title"
    fake_llm.push(Reply.text("more"))
    await _turn(again, "follow-up")
    assert len(_title_requests(fake_llm)) == 1
    await again.aclose()


async def test_headless_runs_and_the_setting_turned_off_ask_for_no_title(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    headless = _runtime(fake_llm, tmp_path, interactive=False)
    assert headless.titles is None
    fake_llm.push(Reply.text("answer"))
    await _turn(headless, "question")
    await headless.aclose()

    settings = _settings(fake_llm)
    settings.sessions.auto_title = False
    interactive = _runtime(fake_llm, tmp_path, settings=settings)
    fake_llm.push(Reply.text("answer"))
    await _turn(interactive, "question")
    await interactive.aclose()
    assert _title_requests(fake_llm) == [] and len(fake_llm.requests) == 2
