"""Hooks in whole turns: PreCompact context reaches the summarizer, PreToolUse denies a write,
UserPromptSubmit blocks or adds context, a broken hook never breaks the turn, untrusted project hooks wait."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from app.config import load_settings
from app.hooks.trust import FolderTrust
from app.core.events import CompactionFinished, Notice, ToolCallFinished, TurnFailed, TurnFinished
from app.core.history import Message
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SUMMARY = "<state_snapshot><all_user_messages>q</all_user_messages><pending_tasks>-</pending_tasks><current_work>w</current_work><next_step>n</next_step></state_snapshot>"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _hook(repo: Path, name: str, body: str) -> list[str]:
    path = repo.parent / f"{name}.py"
    path.write_text("import json, sys\ndata = json.load(sys.stdin)\n" + body, encoding="utf-8")
    return [sys.executable, str(path)]


def _runtime(server: FakeOpenAIServer, repo: Path, hooks: dict, *, layer: str = "user", trusted: bool = True):  # type: ignore[no-untyped-def]
    paths = Paths.for_cwd(repo)
    target = paths.user_settings_file if layer == "user" else paths.project_settings_file
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump({"hooks": hooks}), encoding="utf-8")
    FolderTrust(paths.config_dir).remember(paths.project_root, trusted)
    settings = load_settings(paths, {"model.base_url": server.base_url, "model.name": "fake-model", "model.api_key": "k"}, env={})
    settings.model.max_retries = 0
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False  # its side query would take a reply scripted for the conversation
    return build_runtime(settings, paths)


async def _run(runtime, prompt: str) -> list:  # type: ignore[no-untyped-def]
    return [event async for event in runtime.agent.run(prompt)]


async def test_pre_compact_context_reaches_the_summarizer(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    hook = _hook(repo, "pre", "print(json.dumps({'additionalContext': 'Keep <every> ticket id like PROJ-123. Trigger: ' + data['trigger']}))")
    runtime = _runtime(fake_llm, repo, {"PreCompact": [{"command": hook}]})
    for i in range(3):
        runtime.agent.history += [Message.user(f"q{i}"), Message(role="assistant", content=f"a{i} " + "w" * 2000)]
    fake_llm.push(Reply.text(SUMMARY))
    events = [e async for e in runtime.agent.compact("focus on PROJ-123")]
    assert next(e for e in events if isinstance(e, CompactionFinished)).ok
    system = fake_llm.requests[0].messages[0]["content"]
    tail = system.split("Additional Instructions:\n", 1)[1]
    assert tail == "focus on PROJ-123\n\nKeep &lt;every&gt; ticket id like PROJ-123. Trigger: manual"
    await runtime.aclose()


async def test_pre_tool_use_hook_denies_a_write(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    hook = _hook(repo, "guard", "print(json.dumps({'decision': 'deny', 'reason': 'generated files are read-only'}) if data['tool_input'].get('path', '').startswith('gen/') else '{}')")
    settings_hooks = {"PreToolUse": [{"matcher": "write_file|edit", "command": hook}]}
    runtime = _runtime(fake_llm, repo, settings_hooks)
    runtime.settings.approval_mode = "yolo"
    runtime.policy.mode = __import__("app.core.tools.permissions", fromlist=["ApprovalMode"]).ApprovalMode.YOLO
    fake_llm.push(Reply.tool_calls([("w1", "write_file", {"path": "gen/out.py", "content": "x"}), ("w2", "write_file", {"path": "src.py", "content": "y"})]), Reply.text("done"))
    events = await _run(runtime, "write them")
    results = {e.call.id: e for e in events if isinstance(e, ToolCallFinished)}
    assert results["w1"].status == "rejected" and "generated files are read-only" in results["w1"].output
    assert results["w2"].status == "ok" and (repo / "src.py").exists() and not (repo / "gen" / "out.py").exists()
    await runtime.aclose()


async def test_user_prompt_submit_blocks_or_adds_context(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    hook = _hook(repo, "prompt", "print(json.dumps({'decision': 'block', 'reason': 'no deploys today'}) if 'deploy' in data['prompt'] else json.dumps({'additionalContext': 'The on-call engineer is Ana.'}))")
    runtime = _runtime(fake_llm, repo, {"UserPromptSubmit": [{"command": hook}]})
    events = await _run(runtime, "deploy it")
    assert isinstance(events[-1], TurnFailed) and "no deploys today" in events[-1].message
    assert not fake_llm.requests
    fake_llm.push(Reply.text("Ana is on call."))
    events = await _run(runtime, "who is on call?")
    assert isinstance(events[-1], TurnFinished)
    reminders = [m["content"] for m in fake_llm.requests[0].conversation if m["role"] == "user" and m["content"].startswith("<system-reminder>")]
    assert reminders and "The on-call engineer is Ana." in reminders[0]
    await runtime.aclose()


async def test_a_broken_hook_is_reported_once_and_the_turn_goes_on(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    hook = _hook(repo, "broken", "print('garbage')")
    runtime = _runtime(fake_llm, repo, {"Stop": [{"command": hook}], "UserPromptSubmit": [{"command": hook}]})
    fake_llm.push(Reply.text("fine"), Reply.text("fine again"))
    first = await _run(runtime, "one")
    second = await _run(runtime, "two")
    assert isinstance(first[-2 if isinstance(first[-1], Notice) else -1], (TurnFinished, Notice))
    notices = [e.text for e in first + second if isinstance(e, Notice)]
    assert len(notices) == 2, notices  # one per broken hook, said once
    assert all("not one JSON object" in n for n in notices)
    records = runtime.recorder.path.read_text(encoding="utf-8")
    assert records.count('"hook_problem"') == 2
    await runtime.aclose()


async def test_untrusted_project_hooks_wait_for_trust(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    marker = repo.parent / "ran"
    hook = _hook(repo, "mark", f"open({str(marker)!r}, 'w').write('x')\nprint('{{}}')")
    runtime = _runtime(fake_llm, repo, {"Stop": [{"command": hook}]}, layer="project", trusted=False)
    fake_llm.push(Reply.text("ok"))
    events = await _run(runtime, "hi")
    assert not marker.exists() and isinstance(events[-1], TurnFinished)
    # Folder trust is the one mechanism: an untrusted folder's hooks are not even loaded, and the
    # session says what its project layer would change.
    assert runtime.hooks.runner.specs == []
    assert any(line.startswith("hooks (1 command run") for line in runtime.untrusted_changes())
    await runtime.aclose()
    trusted = _runtime(fake_llm, repo, {"Stop": [{"command": hook}]}, layer="project", trusted=True)
    fake_llm.push(Reply.text("ok"))
    await _run(trusted, "hi again")
    assert marker.exists()
    await trusted.aclose()


async def test_session_start_hook_context_joins_the_first_request(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    hook = _hook(repo, "start", "print(json.dumps({'additionalContext': 'Branch policy: squash merges only. (' + data['source'] + ')'}))")
    runtime = _runtime(fake_llm, repo, {"SessionStart": [{"command": hook, "matcher": "startup"}]})
    assert await runtime.start_session("startup") == []
    fake_llm.push(Reply.text("ok"))
    await _run(runtime, "hello")
    assert any("squash merges only. (startup)" in m["content"] for m in fake_llm.requests[0].conversation)
    await runtime.aclose()
