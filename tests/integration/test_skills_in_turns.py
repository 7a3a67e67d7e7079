"""Skills in whole turns: path activation reaches the next request, the tools block never changes,
invoking a skill loads its body and grants its allowedTools for the turn only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.config import Settings
from app.core.events import ApprovalNeeded, ToolCallFinished, TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

TSX_SKILL = """---
name: react-components
description: Conventions for React components in this repo.
paths: ['src/**/*.tsx']
---
Use function components and hooks.
"""
DEPLOY_SKILL = """---
name: deploy-check
description: Checks before a deploy.
allowedTools: ["run_shell_command(git status*)"]
---
Run git status and report what is uncommitted.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "App.tsx").write_text("export const App = () => null;\n", encoding="utf-8")
    for name, text in (("react-components", TSX_SKILL), ("deploy-check", DEPLOY_SKILL)):
        folder = root / ".qwen" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return root


def _settings(server: FakeOpenAIServer) -> Settings:
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    settings.model.max_retries = 0
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False  # its side query would take a reply scripted for the conversation
    return settings


async def _run(agent, prompt: str, answer=None) -> list:  # type: ignore[no-untyped-def]
    events = []
    async for event in agent.run(prompt):
        events.append(event)
        if isinstance(event, ApprovalNeeded) and event.future is not None:
            event.future.set_result(answer(event) if answer else __import__("app.core.events", fromlist=["Decision"]).Decision.REJECT)
    return events


async def test_reading_a_matching_file_activates_the_skill_for_the_next_request(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    assert runtime.agent is not None
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "src/App.tsx"})]), Reply.text("It renders nothing."))
    fake_llm.push(Reply.text("ok"))
    await _run(runtime.agent, "what does App.tsx do?")
    await _run(runtime.agent, "thanks")
    first, second, third = fake_llm.requests
    prelude = first.messages[1]["content"]
    assert "<name>\ndeploy-check\n</name>" in prelude or "deploy-check" in prelude
    assert "react-components" not in prelude, "waiting for a matching file"
    reminders = [m["content"] for m in second.messages if m["role"] == "user" and "react-components" in m["content"]]
    assert reminders and reminders[0].startswith("<system-reminder>"), "the delta arrives with the next request"
    assert json.dumps(first.body["tools"]) == json.dumps(second.body["tools"]) == json.dumps(third.body["tools"])
    skill_tool = next(t for t in first.body["tools"] if t["function"]["name"] == "skill")
    assert "react-components" not in skill_tool["function"]["description"] and "deploy-check" not in skill_tool["function"]["description"]
    assert runtime.skills.activated_by["react-components"].endswith("App.tsx")
    await runtime.aclose()


async def test_invoking_a_skill_loads_it_and_grants_its_tools_for_the_turn_only(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    from app.trust import FolderTrust

    FolderTrust(Paths.for_cwd(repo).config_dir).remember(repo, True)  # a project skill grants only in a trusted folder
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    assert runtime.agent is not None
    fake_llm.push(
        Reply.tool_calls([("c1", "skill", {"skill": "deploy-check"})]),
        Reply.tool_calls([("c2", "run_shell_command", {"command": "git status"})]),
        Reply.text("clean"),
    )
    asked: list = []
    events = await _run(runtime.agent, "ready to deploy?", answer=lambda e: asked.append(e))
    results = {e.call.id: e for e in events if isinstance(e, ToolCallFinished)}
    assert "Run git status and report" in results["c1"].output
    assert str(repo / ".qwen" / "skills" / "deploy-check") in results["c1"].output, "the base-directory line"
    assert results["c2"].status == "ok" and not asked, "allowedTools ran without asking during the turn"
    assert isinstance(events[-1], TurnFinished)
    fake_llm.push(Reply.tool_calls([("c3", "run_shell_command", {"command": "git status"})]), Reply.text("asked"))
    from app.core.events import Decision

    events = await _run(runtime.agent, "and now?", answer=lambda e: asked.append(e) or Decision.REJECT)
    assert len(asked) == 1, "the grant ended with the turn"
    await runtime.aclose()


async def test_unknown_skill_lists_the_available_ones(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    assert runtime.agent is not None
    fake_llm.push(Reply.tool_calls([("c1", "skill", {"skill": "nope"})]), Reply.text("sorry"))
    events = await _run(runtime.agent, "use nope")
    output = next(e for e in events if isinstance(e, ToolCallFinished)).output
    assert 'Skill "nope" not found' in output and "deploy-check" in output
    await runtime.aclose()


async def test_from_a_subdirectory_the_project_roots_skills_are_listed(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    # A deliberate difference (docs/qwen-code-differences.md): Qwen Code reads only <cwd>/.qwen/skills.
    deeper = repo / "src" / "components"
    deeper.mkdir()
    fake_llm.push(Reply.text("ok"))
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(deeper))
    assert runtime.agent is not None
    await _run(runtime.agent, "hi")
    await runtime.aclose()
    first_user = json.dumps(fake_llm.requests[0].messages[1:])
    assert "deploy-check" in first_user and "Checks before a deploy." in first_user
