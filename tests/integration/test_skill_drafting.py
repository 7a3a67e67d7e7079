"""A long scripted session makes the drafter write one SKILL.md into the drafts folder."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.context.skills.drafts import AUTO_SKILL_THRESHOLD, drafts_dir, list_drafts
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SKILL = "---\nname: run-the-suite\ndescription: Run this project's tests and fix the first failure\n---\n1. Run `make test`.\n2. Fix the first failure.\n"


async def test_a_long_session_produces_one_draft(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a.py").write_text("x = 1\n")
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = fake_llm.base_url, "fake-model", "k"
    settings.model.max_retries = 0
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False  # its side query would take the scripted replies
    paths = Paths.for_cwd(repo)
    runtime = build_runtime(settings, paths)
    calls = [(f"c{i}", "read_file", {"path": "a.py"}) for i in range(AUTO_SKILL_THRESHOLD)]
    fake_llm.push(Reply.tool_calls(calls), Reply.text("Read it twenty times."))
    target = drafts_dir(paths.config_dir) / "run-the-suite" / "SKILL.md"
    fake_llm.push(Reply.tool_calls([("d1", "write_file", {"path": str(target), "content": SKILL})]), Reply.text("Drafted one skill."))
    events = [e async for e in runtime.agent.run("check a.py thoroughly")]
    assert events[-1].kind == "turn_finished"
    await runtime.drafter.drain(10)
    [draft] = list_drafts(paths.config_dir)
    assert draft.name == "run-the-suite" and draft.session_id == runtime.session_id
    assert "You turn experience into reusable skills" in fake_llm.requests[2].messages[0]["content"]
    assert "run-the-suite" not in {s.name for s in runtime.skills.available()}, "a draft is never offered until kept"
    fake_llm.push(Reply.text("ok"))
    [e async for e in runtime.agent.run("more")]
    await runtime.drafter.drain(5)
    assert len(fake_llm.requests) == 5, "at most one draft per session"
    await runtime.aclose()
