"""Commands that run unasked, through whole turns: a skill's grant runs in the sandbox, or asks where none exists.

The attack is a parser miss (the read-only check made to pass everything): a command a skill's
``allowedTools`` covers then runs without a question, and only the sandbox stands between it and the disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from app.core import events as ev
from app.core.tools import sandbox
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

landlock = pytest.mark.skipif(not sandbox.sandbox_status().available, reason=f"no Landlock here: {sandbox.sandbox_status().reason}")
TOUCH_SKILL = """---
name: tidy
description: Tidies the tree.
allowedTools: ["run_shell_command(touch *)"]
---
Touch the marker.
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("app.core.tools.shell_readonly.read_only_refusal", lambda *a, **k: None)  # the parser miss
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    skill = Paths.for_cwd(root).config_dir / "skills" / "tidy"  # the user's own skill: its grant is honoured
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(TOUCH_SKILL)
    return root


def _settings(server: FakeOpenAIServer, mode: str = "auto") -> Settings:
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    settings.model.max_retries = 0
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False
    settings.shell.sandbox = mode
    return settings


async def _turn(server: FakeOpenAIServer, repo: Path, mode: str = "auto") -> tuple[list, list]:
    server.push(
        Reply.tool_calls([("c1", "skill", {"skill": "tidy"})]),
        Reply.tool_calls([("c2", "run_shell_command", {"command": "touch planted.txt"})]),
        Reply.text("done"),
    )
    runtime = build_runtime(_settings(server, mode), Paths.for_cwd(repo))
    assert runtime.agent is not None
    seen, asked = [], []
    async for event in runtime.agent.run("tidy up"):
        seen.append(event)
        if isinstance(event, ev.ApprovalNeeded) and event.future is not None:
            asked.append(event)
            event.future.set_result(ev.Decision.REJECT)
    await runtime.aclose()
    return seen, asked


@landlock
async def test_a_granted_command_runs_unasked_but_in_the_sandbox(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    seen, asked = await _turn(fake_llm, repo)
    result = next(e for e in seen if isinstance(e, ev.ToolCallFinished) and e.call.id == "c2")
    assert not asked, "the grant let it run without a question"
    assert not (repo / "planted.txt").exists(), "the sandbox kept it from writing"
    assert "Permission denied" in result.output and isinstance(seen[-1], ev.TurnFinished)


@landlock
async def test_with_the_sandbox_off_the_grant_runs_it_as_before(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    await _turn(fake_llm, repo, mode="off")
    assert (repo / "planted.txt").exists(), "what stopped it above is the sandbox"


async def test_where_no_sandbox_exists_the_grant_asks(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "sandbox_status", lambda: sandbox.SandboxStatus(False, reason="forced off for the test"))
    seen, asked = await _turn(fake_llm, repo)
    assert len(asked) == 1 and "forced off for the test" in asked[0].reason
    assert not (repo / "planted.txt").exists() and isinstance(seen[-1], ev.TurnFinished)
