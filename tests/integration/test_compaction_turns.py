"""Compaction in whole turns: the fake server plays both the model and the summarizer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.config import CompactionSettings
from app.context.compaction.compactor import Compactor
from app.context.compaction.compose import ACKNOWLEDGEMENT, RESUME_TRAILER
from app.context.compaction.summary import FINAL_INSTRUCTION
from app.core.events import (
    CompactionFinished,
    CompactionPending,
    CompactionStarted,
    ContextWarning,
    Notice,
    TurnFailed,
    TurnFinished,
)
from app.core.agent import Agent
from app.core.history import Message
from app.core.protocols import TurnObserver
from app.core.session.resume import load_session
from app.core.tokens import TokenCounter
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent, run_turn

GOOD_SUMMARY = (
    "<analysis>going through it</analysis>\n<state_snapshot><primary_request_and_intent>fix parse_config</primary_request_and_intent>"
    "<all_user_messages>...</all_user_messages><pending_tasks>none</pending_tasks><current_work>x</current_work>"
    "<next_step>continue</next_step></state_snapshot>"
)


def _compacting_agent(  # type: ignore[no-untyped-def]
    server: FakeOpenAIServer, workspace: Path, chats: Path, window: int, *, observers: tuple = (), **settings
) -> tuple[Agent, Compactor]:
    """An agent whose compactor works against ``window`` tokens with these compaction settings."""
    options = {"auto_delay_seconds": 0.0, "quality_check": False, **settings}
    built: list[Compactor] = []

    def compactor(provider):  # type: ignore[no-untyped-def]
        built.append(
            Compactor(provider=provider, settings=CompactionSettings(**options), counter=TokenCounter("fake-model"), root=workspace, context_window=window)
        )
        return built[0]

    agent = make_agent(server, workspace, chats, context_window=window, compactor=compactor, observers=observers)
    return agent, built[0]


class _FlushRecorder(TurnObserver):
    """Notes the history's length each time the context nears auto-compaction (the memory flush's moment)."""

    def __init__(self) -> None:
        self.flushes: list[int] = []

    def on_context_filling(self, history: list[Message]) -> None:
        self.flushes.append(len(history))


def _long_history(turns: int, size: int) -> list[Message]:
    history: list[Message] = []
    for i in range(turns):
        history += [Message.user(f"question {i} about parse_config"), Message(role="assistant", content=f"answer {i} " + "w" * size)]
    return history


def _records(agent) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(line) for line in agent.recorder.path.read_text(encoding="utf-8").splitlines()]


async def test_auto_compaction_before_the_request_keeps_the_live_request_verbatim(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000)
    agent.history.extend(_long_history(6, 4000))  # ~6k tokens in a 8k window: past auto (5.6k)
    fake_llm.push(Reply.text(GOOD_SUMMARY), Reply.text("Fixed it."))
    events = await run_turn(agent, "now rename `parse_config` to load_config")
    kinds = [e.kind for e in events]
    assert kinds.index("context_warning") < kinds.index("compaction_started") < kinds.index("compaction_finished") < kinds.index("request_started")
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert finished.ok and finished.tokens_after < finished.tokens_before and finished.trigger == "auto"
    summarizer = fake_llm.requests[0].body
    # 20,000 where the window leaves room for it (Qwen Code's figure); an 8k window leaves only the floor.
    assert summarizer["max_tokens"] == 1_024 and summarizer["messages"][-1]["content"] == FINAL_INSTRUCTION
    assert "state_snapshot" in summarizer["messages"][0]["content"]
    sent = fake_llm.requests[1].conversation
    assert sent[0]["content"].startswith("<state_snapshot>") and sent[0]["content"].endswith(RESUME_TRAILER)
    assert "<analysis>" not in sent[0]["content"]
    assert sent[1]["content"] == ACKNOWLEDGEMENT
    assert sent[-1] == {"role": "user", "content": "now rename `parse_config` to load_config"}
    assert isinstance(events[-1], TurnFinished)
    records = _records(agent)
    checkpoint = next(r for r in records if r.get("subtype") == "chat_compression")
    assert checkpoint["systemPayload"]["info"]["triggerReason"] == "auto"
    assert checkpoint["systemPayload"]["info"]["originalTokenCount"] > checkpoint["systemPayload"]["info"]["newTokenCount"]


async def test_a_resumed_session_starts_from_the_compaction(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000)
    for i in range(6):
        agent.recorder.append_message(Message.user(f"q{i}"))
        agent.history.append(Message.user(f"q{i}"))
        agent.recorder.append_message(Message(role="assistant", content="w" * 4000))
        agent.history.append(Message(role="assistant", content="w" * 4000))
    fake_llm.push(Reply.text(GOOD_SUMMARY), Reply.text("ok"))
    await run_turn(agent, "latest question")
    loaded = load_session(agent.recorder.path)
    assert [m.role for m in loaded.messages] == [m.role for m in agent.history]
    assert loaded.messages[0].content.endswith(RESUME_TRAILER)
    assert loaded.messages[-2].content == "latest question" and loaded.messages[-1].content == "ok"
    assert loaded.checkpoint_tokens is not None and loaded.checkpoint_tokens > 0
    assert len(loaded.records) > len(loaded.messages), "the record keeps every original message"


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        (Reply.text(""), "COMPRESSION_FAILED_EMPTY_SUMMARY"),
        (Reply.text("<analysis>only thinking, never a snapshot"), "COMPRESSION_FAILED_EMPTY_SUMMARY"),
        (Reply.text("<state_snapshot>cut", finish_reason="length"), "COMPRESSION_FAILED_OUTPUT_TRUNCATED"),
        (Reply.error(500), "COMPRESSION_FAILED_MODEL_ERROR"),
    ],
)
async def test_a_failed_summary_leaves_the_history_intact_and_the_turn_goes_on(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, reply: Reply, status: str) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000)
    agent.history.extend(_long_history(6, 4000))
    before = list(agent.history)
    fake_llm.push(reply, Reply.text("answered anyway"))
    events = await run_turn(agent, "go on")
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert not finished.ok and finished.status == status
    assert "The conversation is unchanged" in finished.message
    assert agent.history[: len(before)] == before
    assert isinstance(events[-1], TurnFinished)
    assert any(r.get("subtype") == "compaction_failed" for r in _records(agent))


async def test_a_slow_summarizer_times_out(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000, timeout_seconds=0.3)
    agent.history.extend(_long_history(6, 4000))
    fake_llm.push(Reply.stall(30, after=["<analysis>"]), Reply.text("fine"))
    events = await run_turn(agent, "go on")
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert finished.status == "COMPRESSION_FAILED_TIMEOUT" and "did not finish within 0.3 s" in finished.message


async def test_three_failures_pause_auto_compaction_until_a_forced_one(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, compactor = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000)
    agent.history.extend(_long_history(5, 4000))  # over auto, under hard
    for _ in range(3):
        fake_llm.push(Reply.text(""), Reply.text("ok", usage=(6500, 5)))  # the server agrees: past auto
        await run_turn(agent, "again")
    assert compactor.paused
    fake_llm.push(Reply.text("ok", usage=(6600, 5)))
    events = await run_turn(agent, "again")
    assert not any(isinstance(e, CompactionStarted) for e in events)
    assert any(isinstance(e, Notice) and "paused after 3 failures" in e.text for e in events)
    fake_llm.push(Reply.text(GOOD_SUMMARY))
    manual = [e async for e in agent.compact("keep the parser work")]
    finished = next(e for e in manual if isinstance(e, CompactionFinished))
    assert finished.ok and finished.trigger == "manual" and not compactor.paused
    assert fake_llm.requests[-1].body["messages"][0]["content"].endswith("Additional Instructions:\nkeep the parser work")


async def test_the_countdown_can_skip_auto_compaction(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000, auto_delay_seconds=30.0)
    agent.history.extend(_long_history(5, 4000))
    fake_llm.push(Reply.text("answered without compacting"))
    events = []
    async for event in agent.run("quick question"):
        events.append(event)
        if isinstance(event, CompactionPending) and event.future is not None:
            event.future.set_result(False)
    assert not any(isinstance(e, CompactionStarted) for e in events)
    assert any(isinstance(e, Notice) and "skipped" in e.text for e in events)
    assert isinstance(events[-1], TurnFinished) and len(fake_llm.requests) == 1


async def test_hard_threshold_forces_compaction_without_asking(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000, auto_delay_seconds=30.0)
    agent.history.extend(_long_history(8, 4000))  # past hard (8k)
    fake_llm.push(Reply.text(GOOD_SUMMARY), Reply.text("ok"))
    events = await asyncio.wait_for(run_turn(agent, "q"), 10)
    assert not any(isinstance(e, CompactionPending) for e in events)
    assert next(e for e in events if isinstance(e, CompactionFinished)).trigger == "hard"


async def test_overflow_is_recovered_by_compacting_and_retrying(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 1_000_000)  # our estimate says it fits; the server disagrees
    agent.history.extend(_long_history(3, 400))
    too_long = {"error": {"message": "This model's maximum context length is 4096 tokens.", "type": "invalid_request_error"}}
    fake_llm.push(Reply.error(400, too_long), Reply.text(GOOD_SUMMARY), Reply.text("made it"))
    events = await run_turn(agent, "q")
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert finished.trigger == "overflow" and finished.ok
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "made it"


async def test_overflow_gives_up_with_advice_once_compacting_stops_helping(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 1_000_000)
    agent.history.extend(_long_history(3, 400))
    too_long = {"error": {"message": "prompt is too long"}}
    for _ in range(4):
        fake_llm.push(Reply.error(400, too_long), Reply.text(GOOD_SUMMARY))
    events = await run_turn(agent, "q")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and "/new" in failed.message and "Compacting did not help" in failed.message
    # refused, compacted, refused, compaction inflated: the same request is not sent a third time.
    assert len(fake_llm.requests) == 4


async def test_quality_check_asks_once_for_the_lost_identifiers(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000, quality_check=True)
    agent.history.extend(_long_history(6, 4000))
    agent.history.append(Message.user("please keep `tokenize_stream` in mind"))
    agent.history.append(Message(role="assistant", content="sure"))
    fake_llm.push(Reply.text(GOOD_SUMMARY), Reply.text(GOOD_SUMMARY.replace("fix parse_config", "fix parse_config and tokenize_stream")), Reply.text("ok"))
    events = await run_turn(agent, "go on with parse_config")
    assert next(e for e in events if isinstance(e, CompactionFinished)).ok
    correction = fake_llm.requests[1].body["messages"][-1]["content"]
    assert "- tokenize_stream" in correction


async def test_warn_notice_once_per_cycle(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, compactor = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 8_000)
    agent.history.extend(_long_history(4, 4200))  # ~4.3k: between warn (4.8k?) and auto
    tokens = compactor.gate_tokens(agent.assembler.assemble(agent.history + [Message.user("q")], agent.tools.schemas()).total_tokens)
    assert compactor.band(tokens) == "warn", tokens
    fake_llm.push(Reply.text("a"), Reply.text("b"))
    first = await run_turn(agent, "q")
    second = await run_turn(agent, "q")
    assert sum(isinstance(e, ContextWarning) for e in first) == 1
    assert not any(isinstance(e, ContextWarning) for e in second)


async def test_compress_fast_clears_old_results_and_is_replayed_on_resume(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    (workspace / "a.py").write_text("print(1)\n" * 50, encoding="utf-8")
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 1_000_000, keep_recent_tool_results=1)
    for i in range(3):
        fake_llm.push(Reply.tool_calls([(f"c{i}", "read_file", {"path": "a.py"})]), Reply.text(f"read {i}"))
        await run_turn(agent, f"read it {i}")
    result = agent.compact_fast()
    assert result is not None and len(result.cleared_ids) == 2
    loaded = load_session(agent.recorder.path)
    cleared = [m for m in loaded.messages if m.role == "tool" and m.content == "[Old tool result content cleared]"]
    assert len(cleared) == 2
    assert [m.content for m in loaded.messages] == [m.content for m in agent.history]


@pytest.mark.parametrize("enabled", [True, False])
async def test_the_memory_flush_runs_once_when_the_count_nears_auto(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, enabled: bool) -> None:
    flush = _FlushRecorder()
    agent, compactor = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 100_000, memory_flush=enabled, observers=(flush,))
    agent.history.extend(_long_history(67, 4000))  # about 67k tokens: past auto - 4,000 (66k), below auto (70k)
    fake_llm.push(Reply.text("one"), Reply.text("two"))
    first = await run_turn(agent, "first")
    second = await run_turn(agent, "second")
    assert not any(isinstance(e, CompactionStarted) for e in first + second), "below auto: no compaction"
    assert flush.flushes == ([len(agent.history) - 3] if enabled else []), "once per compaction cycle, before the request"
    assert compactor.flushed is enabled


async def test_a_summary_larger_than_what_it_replaces_is_refused_and_nothing_changes(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent, _ = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 100_000)
    agent.history.extend(_long_history(6, 4000))
    before = list(agent.history)
    # A large window, so the summarizer may write more than the conversation holds (its limit is 20,000 here).
    bloated = "<state_snapshot><current_work>" + "padding " * 4_000 + "</current_work></state_snapshot>"
    fake_llm.push(Reply.text(bloated))
    events = [event async for event in agent.compact()]
    assert fake_llm.requests[0].body["max_tokens"] == 20_000
    finished = next(e for e in events if isinstance(e, CompactionFinished))
    assert not finished.ok and finished.status == "COMPRESSION_FAILED_INFLATED_TOKEN_COUNT"
    assert "would not have made the context smaller" in finished.message
    assert f"{finished.tokens_before:,} tokens" in finished.message, "the numbers are in the message"
    assert agent.history == before, "the conversation is unchanged"
    assert any(r.get("subtype") == "compaction_failed" for r in _records(agent))


async def test_a_long_session_crosses_warn_then_auto_then_hard(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    """One scripted session, each answer about 4,000 tokens, in a 40,000-token window (warn 24k, auto 28k, hard 31k)."""
    fake_llm.responder = lambda request: Reply.text(GOOD_SUMMARY) if request.body["messages"][-1]["content"] == FINAL_INSTRUCTION else Reply.text("w" * 16_000)
    agent, compactor = _compacting_agent(fake_llm, workspace, tmp_path / "chats", 40_000)
    seen: list[tuple[int, str]] = []
    for turn in range(16):
        if turn == 9:
            compactor.settings.auto = False  # from here only the hard limit compacts
        events = await run_turn(agent, f"question {turn}")
        assert isinstance(events[-1], TurnFinished), events[-1]
        for event in events:
            if isinstance(event, ContextWarning):
                seen.append((turn, "warn"))
            elif isinstance(event, CompactionFinished):
                assert event.ok, event.message
                seen.append((turn, event.trigger))
    kinds = [kind for _, kind in seen]
    assert kinds[:2] == ["warn", "auto"], seen
    assert "hard" in kinds and kinds.index("hard") > kinds.index("auto"), seen
    hard_turn = next(turn for turn, kind in seen if kind == "hard")
    assert hard_turn >= 9, "with auto off, only the hard limit compacts"
    assert compactor.count(agent.history) < compactor.thresholds.hard
