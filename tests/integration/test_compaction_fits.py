"""Compaction that fits or says why: a first turn over the limit, the summarizer's view, a fixed part too big for the window."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.config import Settings
from app.context.compaction.summary import FINAL_INSTRUCTION
from app.core.events import CompactionFinished, CompactionStarted, TurnFailed, TurnFinished
from app.core.history import Message
from app.cli.headless import EXIT_FAILED, run_headless
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

GOOD_SUMMARY = (
    "<state_snapshot><primary_request_and_intent>read the logs</primary_request_and_intent><all_user_messages>...</all_user_messages>"
    "<pending_tasks>none</pending_tasks><current_work>x</current_work><next_step>continue</next_step></state_snapshot>"
)


def _settings(server: FakeOpenAIServer, window: int) -> Settings:
    settings = Settings()
    settings.model.base_url = server.base_url
    settings.model.name = "fake-model"
    settings.model.api_key = "k"
    settings.model.max_retries = 0
    settings.model.context_window = window
    settings.sessions.auto_title = False  # its side query would take a reply scripted for the conversation
    settings.approval_mode = "yolo"
    settings.compaction.auto_delay_seconds = 0
    settings.compaction.quality_check = False
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.memory.enabled = False
    return settings


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def _records(runtime) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(line) for line in runtime.recorder.path.read_text(encoding="utf-8").splitlines()]


async def test_a_first_turn_over_the_limit_is_cut_to_fit_and_sent(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    # Three logs of ~3.5k tokens each, read in one round: a first turn with nothing before it to summarize.
    for name in ("a.log", "b.log", "c.log"):
        (repo / name).write_text("".join(f"{name} line {i:05d} ok\n" for i in range(700)), encoding="utf-8")
    fake_llm.push(
        Reply.tool_calls([(f"call_{n}", "read_file", {"path": n}) for n in ("a.log", "b.log", "c.log")]),
        Reply.text("All three logs are fine."),
    )
    runtime = build_runtime(_settings(fake_llm, 16_000), Paths.for_cwd(repo))
    assert runtime.agent is not None
    events = [event async for event in runtime.agent.run("read a.log, b.log and c.log")]
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert finished.ok, finished.message
    assert "the conversation is too short to summarize; cut" in finished.message and "large parts to their head and tail" in finished.message
    assert finished.tokens_after < runtime.agent.compactor.thresholds.hard  # type: ignore[union-attr]
    assert isinstance(events[-1], TurnFinished), events[-1]
    sent = fake_llm.requests[-1].conversation
    results = [m["content"] for m in sent if m["role"] == "tool"]
    assert len(results) == 3 and any("characters cut from the middle of this tool result" in r for r in results)
    assert "c.log line 00699" in results[-1], "the latest result keeps its tail"
    assert any(r.get("subtype") == "chat_compression" for r in _records(runtime))
    await runtime.aclose()


async def test_the_summarizer_sees_the_whole_history_with_the_tool_round_in_flight(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    (repo / "big.txt").write_text("zzzz zzzz zzzz zzzz zzzz zzzz zzz\n" * 800, encoding="utf-8")
    runtime = build_runtime(_settings(fake_llm, 16_000), Paths.for_cwd(repo))
    agent = runtime.agent
    assert agent is not None
    for i in range(3):
        agent.history += [Message.user(f"earlier question {i}"), Message(role="assistant", content=f"earlier answer {i} " + "w" * 8000)]
    fake_llm.push(
        Reply.tool_calls([("call_1", "read_file", {"path": "big.txt"})]),
        Reply.text(GOOD_SUMMARY),
        Reply.text("done"),
    )
    events = [event async for event in agent.run("look at big.txt")]
    assert any(isinstance(e, CompactionFinished) and e.ok for e in events), [(e.kind, getattr(e, "message", ""), getattr(e, "tokens", "")) for e in events if e.kind not in ("assistant_message", "context_assembled", "request_started", "usage", "text_delta")]
    summarizer = next(r for r in fake_llm.requests if r.body["messages"][-1]["content"] == FINAL_INSTRUCTION)
    roles = [m["role"] for m in summarizer.body["messages"]]
    assert roles[0] == "system" and roles[-4:] == ["user", "assistant", "tool", "user"], roles
    assert summarizer.body["messages"][-3]["tool_calls"][0]["id"] == "call_1"
    assert "tools" not in summarizer.body
    await runtime.aclose()


async def test_the_gate_and_the_compaction_use_the_same_measure(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(_settings(fake_llm, 16_000), Paths.for_cwd(repo))
    agent = runtime.agent
    assert agent is not None
    for i in range(4):
        agent.history += [Message.user(f"question {i}"), Message(role="assistant", content=f"answer {i} " + "w" * 2000)]
    # The server counts far more than we do (a tokenizer we do not have): its figure is what the gate acts on.
    fake_llm.push(Reply.text("first", usage=(15_500, 5)), Reply.text(GOOD_SUMMARY), Reply.text("second"))
    [event async for event in agent.run("one")]
    events = [event async for event in agent.run("two")]
    started = next(e for e in events if isinstance(e, CompactionStarted))
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert started.tokens >= 15_500 and finished.tokens_before == started.tokens, "the server's figure, not our smaller count"
    assert finished.trigger == "hard" and finished.ok, finished.message
    await runtime.aclose()


async def test_a_fixed_part_too_big_for_the_window_is_never_sent_and_p_exits_non_zero(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    (repo / "AGENTS.md").write_text("".join(f"- rule {i}: keep every public API stable across releases\n" for i in range(400)), encoding="utf-8")
    runtime = build_runtime(_settings(fake_llm, 4_000), Paths.for_cwd(repo))
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "hello", "text", out=out, err=err)
    await runtime.aclose()
    assert code == EXIT_FAILED
    assert not fake_llm.requests, "a request known to be over the window is never sent"
    message = err.getvalue()
    assert "error: Even the fixed part of the request does not fit the model's context window:" in message
    for words in ("for a 4,000-token window", "system prompt ", "tools ", "instruction files ", "memory ", "skills ", "Nothing was sent."):
        assert words in message, words
    assert "model.context_window" in message and "skills.disabled" in message and "context.file_name" in message
    overflow = [r for r in _records(runtime) if r.get("subtype") == "context_overflow"]
    assert overflow and overflow[0]["systemPayload"]["fixedPart"] is True


async def test_a_conversation_that_cannot_be_made_to_fit_stops_with_the_numbers(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(_settings(fake_llm, 9_000), Paths.for_cwd(repo))
    agent = runtime.agent
    assert agent is not None
    # Many small messages, none large enough to cut, and a summarizer that fails.
    for i in range(60):
        agent.history += [Message.user(f"q{i} " + "x" * 300), Message(role="assistant", content=f"a{i} " + "y" * 300)]
    fake_llm.push(Reply.error(500))
    events = [event async for event in agent.run("next")]
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert not finished.ok and "tokens; the hard limit is" in finished.message
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and "does not fit the model's context window even after compacting" in failed.message
    assert len(fake_llm.requests) == 1, "only the summarizer was asked; the over-limit request was not sent"
    subtypes = [r.get("subtype") for r in _records(runtime)]
    assert "compaction_failed" in subtypes and "context_overflow" in subtypes
    await runtime.aclose()


async def test_p_prints_the_failed_compaction_and_exits_non_zero(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(_settings(fake_llm, 9_000), Paths.for_cwd(repo))
    assert runtime.agent is not None
    for i in range(60):
        runtime.agent.history += [Message.user(f"q{i} " + "x" * 300), Message(role="assistant", content=f"a{i} " + "y" * 300)]
    fake_llm.push(Reply.error(500))
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(runtime, "next", "text", out=out, err=err)
    await runtime.aclose()
    lines = err.getvalue().splitlines()
    assert code == EXIT_FAILED
    assert any(line.startswith("warning: Failed to compress chat history: the summarizer request failed") and "the hard limit is" in line for line in lines)
    assert any(line.startswith("error: The request does not fit the model's context window even after compacting:") for line in lines)
