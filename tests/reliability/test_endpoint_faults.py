"""Endpoint faults through a real runtime and the real openai client: nothing lost, the session goes on.

Every scenario runs one turn against a scripted fault, then checks the same four
things: the requests the server received (bounded retries only where retrying
makes sense), the one sentence the person reads, the user's words in the
session record, and a next turn that works, with memory extraction after it.
"""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from app.context.memory import MemoryScope
from app.context.memory.document import parse_memory_text
from app.core.events import CompactionFinished, Notice, Retrying, StreamReset, ToolCallFinished, TurnFailed, TurnFinished
from app.core.history import Message
from app.core.llm.retry import RetryPolicy
from app.core.session.resume import load_session
from app.paths import Paths
from app.runtime import Runtime, build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.helpers import Script, attach, bytes_lost, of_type, record_rows, recorded_prompts, settings_for, turn
from tests.reliability.report import BYTES_LOST

RETRIES = 2  # so an exhausted retry is three requests
MEMORY = "---\nname: prefers small commits\ndescription: the user wants one change per commit\ntype: feedback\n---\nOne change per commit.\n"
SUMMARY = (
    "<analysis>notes</analysis>\n<state_snapshot><primary_request_and_intent>keep going</primary_request_and_intent>"
    "<current_work>x</current_work><next_step>continue</next_step></state_snapshot>"
)
TOO_LONG = {"error": {"message": "This model's maximum context length is 32768 tokens. However, your messages resulted in 40000 tokens.", "type": "invalid_request_error"}}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "README.md").write_text("# Project\n", encoding="utf-8")
    return root


def _runtime(base_url: str, repo: Path, *, read_timeout: float = 10.0) -> Runtime:
    settings = settings_for(base_url, retries=RETRIES, read_timeout=read_timeout, extraction=True)
    settings.compaction.quality_check = False
    runtime = build_runtime(settings, Paths.for_cwd(repo))
    assert runtime.agent is not None
    # The configured retry count, with a short backoff so a scenario takes milliseconds (Retry-After still wins).
    runtime.agent.retry = RetryPolicy(max_retries=RETRIES, base_delay=0.01, max_total_seconds=20)
    return runtime


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return Reply.chunk(delta, finish, **extra)


@dataclass
class Fault:
    """One scripted fault: the conversation's replies for the faulty turn and what must come of it."""

    name: str
    replies: list[Reply]
    requests: int  # chat requests the server receives for the faulty turn
    failure: str | None = None  # the exact sentence the person reads; None when the turn recovers
    read_timeout: float = 10.0
    check: Callable[[list, Script, Runtime], None] = field(default=lambda events, script, runtime: None)


def _retry_after_honoured(events: list, script: Script, runtime: Runtime) -> None:
    [retry] = of_type(events, Retrying)
    assert retry.delay == 1.0, "the server's Retry-After wins over our backoff"


def _backed_off_twice(events: list, script: Script, runtime: Runtime) -> None:
    assert [r.attempt for r in of_type(events, Retrying)] == [1, 2]


def _reset_once(events: list, script: Script, runtime: Runtime) -> None:
    assert len(of_type(events, StreamReset)) == 1
    assert events[-1].result == "Whole answer.", "the partial attempt is dropped, not glued to the retry"
    answers = [r for r in record_rows(runtime.recorder.path) if r["type"] == "assistant"]
    assert [a["message"]["content"] for a in answers] == ["Whole answer."]


def _unknown_fields_ignored(events: list, script: Script, runtime: Runtime) -> None:
    assert events[-1].result == "Hello"


def _cut_off_said(events: list, script: Script, runtime: Runtime) -> None:
    assert [n.text for n in of_type(events, Notice)] == ["The answer was cut off: the model reached its output-token limit (model.max_output_tokens raises it)."]
    assert events[-1].result == "A cut-off ans"


def _bad_arguments_answered(events: list, script: Script, runtime: Runtime) -> None:
    [finished] = of_type(events, ToolCallFinished)
    assert finished.status == "error" and "not valid JSON" in finished.output
    # What goes back on the wire must be valid JSON: strict servers parse every past call's arguments.
    for request in script.requests("main"):
        for message in request.messages:
            for call in message.get("tool_calls") or []:
                assert isinstance(json.loads(call["function"]["arguments"]), dict)


def _unknown_tool_answered(events: list, script: Script, runtime: Runtime) -> None:
    [finished] = of_type(events, ToolCallFinished)
    assert finished.status == "error"
    assert finished.output.startswith("Unknown tool 'delete_everything'. Available tools: read_file, ")


FAULTS = [
    Fault("429 with Retry-After", [Reply.error(429, headers={"Retry-After": "1"}), Reply.text("Answered after waiting.")], 2, check=_retry_after_honoured),
    Fault(
        "429 without Retry-After",
        [Reply.error(429)] * 3,
        3,
        "The model endpoint is rate-limiting requests (HTTP 429): fake HTTP 429. (gave up after 3 attempts)",
        check=_backed_off_twice,
    ),
    Fault("500 then an answer", [Reply.error(500), Reply.text("Recovered.")], 2),
    Fault("503 until the retries run out", [Reply.error(503)] * 3, 3, "The model endpoint had a server error (HTTP 503): fake HTTP 503. (gave up after 3 attempts)"),
    Fault("reset mid-stream", [Reply.drop(after=["Half an ", "ans"]), Reply.text("Whole ", "answer.")], 2, check=_reset_once),
    Fault(
        "malformed chunk",
        [Reply.sse(_chunk({"role": "assistant", "content": "par"}), "{not json")],
        1,
        "The endpoint at {base_url} sent something that is not an OpenAI-compatible answer (a streamed event that is not JSON: '{{not json').",
    ),
    Fault(
        "chunk with unknown fields",
        [Reply.sse(_chunk({"role": "assistant", "content": "Hel", "x_hint": [1]}, x_vendor={"trace": "z"}), _chunk({"content": "lo"}), _chunk({}, "stop", x_usage_v2=3))],
        1,
        check=_unknown_fields_ignored,
    ),
    Fault("stall past the read timeout", [Reply.stall(30, after=["wait"]), Reply.text("Back.")], 2, read_timeout=0.3),
    Fault("finish_reason length", [Reply.text("A cut-off ", "ans", finish_reason="length")], 1, check=_cut_off_said),
    Fault(
        "context length exceeded",
        [Reply.error(400, TOO_LONG)],
        1,
        "The request is larger than the model's context window (HTTP 400): This model's maximum context length is 32768 tokens. "
        "However, your messages resulted in 40000 tokens. Compacting did not help: Could not compress chat history: the conversation is "
        "too short to summarize, and it has no large tool result or pasted block to cut ({tokens} tokens; the hard limit is 25,400 of a "
        "32,000-token window). Start a new session (/new), or /compress with a focus on what matters now.",
    ),
    Fault("tool call with invalid JSON arguments", [Reply.tool_calls([("c1", "read_file", '{"path": "READ')]), Reply.text("I will not guess.")], 2, check=_bad_arguments_answered),
    Fault("tool call to an unknown tool", [Reply.tool_calls([("c1", "delete_everything", {"all": True})]), Reply.text("No such tool.")], 2, check=_unknown_tool_answered),
]


async def _next_turn_works_and_memory_still_extracts(runtime: Runtime, script: Script, faulty_prompt: str) -> None:
    """The session takes another turn, and the extraction agent reads it (and the faulty one) and saves a memory."""
    await runtime.memory.drain(10)  # an extraction after a turn that recovered
    target = runtime.memory.mem.project_root / "feedback" / "small-commits.md"
    script.add("extract", Reply.tool_calls([("m1", "write_file", {"path": str(target), "content": MEMORY})]), Reply.text("Saved one memory."))
    before = script.count("main")
    script.add("main", Reply.text("Next turn works."))
    events = await turn(runtime, "and now something else")
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "Next turn works.", events[-1]
    sent = [m.get("content") for m in script.requests("main")[before].messages]
    assert faulty_prompt in sent and sent[-1] == "and now something else"
    await runtime.memory.drain(10)
    assert runtime.memory.extraction.state == "done" and runtime.memory.extraction.detail == "saved 1 memory"
    assert parse_memory_text(target.read_text(encoding="utf-8")).name == "prefers small commits"
    assert "prefers small commits" in runtime.memory.mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    transcripts = " ".join(str(r.messages[-1]["content"]) for r in script.requests("extract"))
    assert faulty_prompt in transcripts, "the extraction agent saw the faulty turn's prompt"


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
async def test_endpoint_fault(fake_llm: FakeOpenAIServer, repo: Path, fault: Fault, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", *fault.replies)
    runtime = _runtime(fake_llm.base_url, repo, read_timeout=fault.read_timeout)
    prompt = f"please handle this ({fault.name})"
    try:
        events = await turn(runtime, prompt)
        assert script.count("main") == fault.requests, [r.body.get("messages", [])[-1:] for r in script.requests("main")]
        final = events[-1]
        if fault.failure is None:
            assert isinstance(final, TurnFinished), final
        else:
            assert isinstance(final, TurnFailed), final
            # {tokens}: the conversation's size as the compaction measured it (it depends on the temporary path's length).
            measured = next((f"{e.tokens_before:,}" for e in events if isinstance(e, CompactionFinished)), "")
            assert final.message == fault.failure.format(base_url=fake_llm.base_url, tokens=measured)
        fault.check(events, script, runtime)
        assert recorded_prompts(runtime.recorder.path) == [prompt]
        record_property(BYTES_LOST, bytes_lost([prompt], runtime.recorder.path))
        await _next_turn_works_and_memory_still_extracts(runtime, script, prompt)
        assert recorded_prompts(runtime.recorder.path) == [prompt, "and now something else"]
    finally:
        await runtime.aclose()


async def test_connection_refused_then_the_endpoint_comes_back(repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    probe = socket.socket()  # bound, never listening: refused, and held so no parallel test takes the port
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    runtime = _runtime(base_url, repo)
    prompt = "is anyone there?"
    server = FakeOpenAIServer(port=port)
    try:
        events = await turn(runtime, prompt)
        assert isinstance(events[-1], TurnFailed)
        assert events[-1].message == (
            f"Could not reach the model endpoint at {base_url} (connection refused). "
            "Is the server running and the URL right? (gave up after 3 attempts)"
        )
        assert len(of_type(events, Retrying)) == RETRIES
        assert recorded_prompts(runtime.recorder.path) == [prompt]
        record_property(BYTES_LOST, bytes_lost([prompt], runtime.recorder.path))
        probe.close()
        server.start()
        script = attach(server)
        await _next_turn_works_and_memory_still_extracts(runtime, script, prompt)
    finally:
        probe.close()
        await runtime.aclose()
        server.stop()


async def test_context_length_exceeded_compacts_and_sends_again(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", Reply.error(400, TOO_LONG), Reply.text("Fits now.")).add("summary", Reply.text(SUMMARY))
    runtime = _runtime(fake_llm.base_url, repo)
    assert runtime.agent is not None
    for i in range(3):
        runtime.agent.history += [Message.user(f"earlier question {i}"), Message(role="assistant", content=f"answer {i} " + "w" * 2000)]
    prompt = "one more question"
    try:
        events = await turn(runtime, prompt)
        assert isinstance(events[-1], TurnFinished) and events[-1].result == "Fits now."
        [compaction] = of_type(events, CompactionFinished)
        assert compaction.ok and compaction.trigger == "overflow"
        assert (script.count("main"), script.count("summary")) == (2, 1)
        assert script.requests("main")[1].messages[-1] == {"role": "user", "content": prompt}, "the live request is sent verbatim"
        loaded = load_session(runtime.recorder.path)
        assert [r.subtype for r in loaded.records if r.type == "system"] == ["chat_compression"]
        assert recorded_prompts(runtime.recorder.path) == [prompt]
        record_property(BYTES_LOST, bytes_lost([prompt], runtime.recorder.path))
        await _next_turn_works_and_memory_still_extracts(runtime, script, prompt)
    finally:
        await runtime.aclose()
