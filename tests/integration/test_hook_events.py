"""The hook events the turn tests leave out: what PostCompact, SessionStart (compact), InstructionsLoaded,
PostToolUse and a PreToolUse "ask" see and do in real turns against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.events import (
    ApprovalNeeded,
    CompactionFinished,
    Decision,
    ToolCallFinished,
    TurnFinished,
)
from app.core.history import Message
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_hooks_in_turns import SUMMARY, _hook, _run, _runtime

ANALYSIS = "<analysis>the model's notes, which no hook should see</analysis>\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _recorder(repo: Path, name: str, answer: dict | None = None) -> tuple[list[str], Path]:
    """A hook that appends the JSON it receives to a file (one line per run) and prints ``answer``."""
    out = repo.parent / f"{name}.jsonl"
    body = f"open({str(out)!r}, 'a').write(json.dumps(data) + '\\n')\nprint(json.dumps({answer or {}!r}))"
    return _hook(repo, name, body), out


def _received(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []


def _long_history(runtime) -> None:  # type: ignore[no-untyped-def]
    for i in range(3):
        runtime.agent.history += [Message.user(f"q{i}"), Message(role="assistant", content=f"a{i} " + "w" * 2000)]


async def test_compaction_runs_post_compact_then_session_start_compact(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    post, post_out = _recorder(repo, "post")
    start, start_out = _recorder(repo, "start", {"additionalContext": "Re-read docs/ARCHITECTURE.md after a compaction."})
    runtime = _runtime(fake_llm, repo, {"PostCompact": [{"command": post}], "SessionStart": [{"command": start, "matcher": "compact"}]})
    _long_history(runtime)
    fake_llm.push(Reply.text(ANALYSIS + SUMMARY))
    events = [e async for e in runtime.agent.compact()]
    assert next(e for e in events if isinstance(e, CompactionFinished)).ok
    [post_payload] = _received(post_out)
    assert post_payload["hook_event_name"] == "PostCompact" and post_payload["trigger"] == "manual"
    assert post_payload["summary"] == SUMMARY, "PostCompact receives the summary with the analysis stripped"
    [start_payload] = _received(start_out)
    assert start_payload["source"] == "compact"
    fake_llm.push(Reply.text("ok"))
    await _run(runtime, "go on")
    sent = [m["content"] for m in fake_llm.requests[1].conversation if m["role"] == "user"]
    assert any("Re-read docs/ARCHITECTURE.md after a compaction." in text for text in sent)
    await runtime.aclose()


async def test_a_failed_compaction_fires_no_post_compact_and_no_session_start(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    post, post_out = _recorder(repo, "post")
    start, start_out = _recorder(repo, "start")
    runtime = _runtime(fake_llm, repo, {"PostCompact": [{"command": post}], "SessionStart": [{"command": start}]})
    _long_history(runtime)
    fake_llm.push(Reply.text(""))  # an empty summary: the compaction fails, the history stays
    events = [e async for e in runtime.agent.compact()]
    assert not next(e for e in events if isinstance(e, CompactionFinished)).ok
    assert _received(post_out) == [] and _received(start_out) == []
    await runtime.aclose()


async def test_instructions_loaded_names_each_file_with_its_memory_type(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    config_dir = Paths.for_cwd(repo).config_dir
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "QWEN.md").write_text("Answer in English.\n", encoding="utf-8")
    (repo / "QWEN.md").write_text("Run make test before committing.\n", encoding="utf-8")
    (repo / ".qwen").mkdir()
    (repo / ".qwen" / "QWEN.local.md").write_text("My branch is ana/wip.\n", encoding="utf-8")
    hook, out = _recorder(repo, "loaded")
    runtime = _runtime(fake_llm, repo, {"InstructionsLoaded": [{"command": hook}]})
    assert await runtime.start_session("startup") == []
    [payload] = _received(out)
    types = {str(Path(f["path"]).resolve()): f["memory_type"] for f in payload["files"]}
    assert types == {
        str((config_dir / "QWEN.md").resolve()): "user",
        str((repo / "QWEN.md").resolve()): "project",
        str((repo / ".qwen" / "QWEN.local.md").resolve()): "local",
    }
    await runtime.aclose()


async def test_post_tool_use_sees_the_result_and_its_context_reaches_the_model(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    (repo / "notes.txt").write_text("the build uses ninja\n", encoding="utf-8")
    hook, out = _recorder(repo, "after", {"additionalContext": "notes.txt is generated; edit notes.in instead."})
    runtime = _runtime(fake_llm, repo, {"PostToolUse": [{"matcher": "read_file", "command": hook}]})
    fake_llm.push(Reply.tool_calls([("r1", "read_file", {"path": "notes.txt"})]), Reply.text("It uses ninja."))
    events = await _run(runtime, "what does the build use?")
    assert isinstance(events[-1], TurnFinished)
    [payload] = _received(out)
    assert payload["hook_event_name"] == "PostToolUse" and payload["tool_name"] == "read_file"
    assert payload["tool_call_id"] == "r1" and payload["tool_input"] == {"path": "notes.txt"} and payload["status"] == "ok"
    assert "the build uses ninja" in payload["tool_output"]
    sent = [m["content"] for m in fake_llm.requests[1].conversation if m["role"] == "user" and isinstance(m["content"], str)]
    assert any("notes.txt is generated; edit notes.in instead." in text for text in sent)
    await runtime.aclose()


async def test_pre_tool_use_ask_turns_an_allowed_call_into_an_approval(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    (repo / "secrets.env").write_text("TOKEN=x\n", encoding="utf-8")
    (repo / "readme.txt").write_text("hello\n", encoding="utf-8")
    hook = _hook(repo, "ask", "print(json.dumps({'decision': 'ask', 'reason': 'env files'}) if data['tool_input']['path'].endswith('.env') else '{}')")
    runtime = _runtime(fake_llm, repo, {"PreToolUse": [{"matcher": "read_file", "command": hook}]})
    calls = [("r1", "read_file", {"path": "readme.txt"}), ("r2", "read_file", {"path": "secrets.env"})]
    fake_llm.push(Reply.tool_calls(calls), Reply.text("done"))
    asked: list[str] = []
    finished: dict[str, ToolCallFinished] = {}
    async for event in runtime.agent.run("read both"):
        if isinstance(event, ApprovalNeeded):
            asked.append(event.call.id)
            event.future.set_result(Decision.REJECT)
        elif isinstance(event, ToolCallFinished):
            finished[event.call.id] = event
    assert asked == ["r2"], "read_file is allowed without asking; the hook's ask makes it an approval"
    assert finished["r1"].status == "ok" and finished["r2"].status == "rejected"
    await runtime.aclose()
