"""How a drafting run ends: a failure is a failure (with its reason), and one run keeps one draft at most.
Also the gate that skips drafting when a skill was edited, given a path relative to the project root."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.context.skills.discovery import skills_dirs
from app.context.skills.drafts import (
    AUTO_SKILL_THRESHOLD,
    SOURCE_FILE,
    SkillDrafter,
    drafts_dir,
    list_drafts,
)
from app.core.history import Message, ToolCall
from app.runtime import model_provider
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: Do {name} the way this project does it\n---\n1. Step one.\n"


def _drafter(server: FakeOpenAIServer, tmp_path: Path, **options) -> SkillDrafter:  # type: ignore[no-untyped-def]
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    drafter = SkillDrafter(config_dir=tmp_path / "config", skill_dirs=list, session_id="sess-1", enabled=True, provider=model_provider(settings), **options)
    drafter.tool_calls = AUTO_SKILL_THRESHOLD
    return drafter


async def _draft(drafter: SkillDrafter) -> None:
    assert drafter.maybe_draft([Message.user("release it"), Message(role="assistant", content="Released.")])
    await drafter.drain(10)


async def test_a_failed_run_ends_failed_with_its_reason(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    told: list[str] = []
    drafter = _drafter(fake_llm, tmp_path, status=lambda status: told.append(status.state))
    fake_llm.push(Reply.error(400, {"error": {"message": "model not loaded", "type": "invalid_request_error"}}))
    await _draft(drafter)
    assert drafter.state == "failed", drafter.reason
    assert "model not loaded" in drafter.reason
    assert drafter.draft_name == "" and told == ["failed"]


async def test_one_run_keeps_only_its_first_draft(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    drafter = _drafter(fake_llm, tmp_path)
    root = drafts_dir(drafter.config_dir)
    calls = [
        ("d1", "write_file", {"path": str(root / "zz-release" / "SKILL.md"), "content": _skill("zz-release")}),
        ("d2", "write_file", {"path": "aa-tests/SKILL.md", "content": _skill("aa-tests")}),  # relative to the drafts dir
    ]
    fake_llm.push(Reply.tool_calls(calls), Reply.text("Drafted two."))
    await _draft(drafter)
    assert drafter.state == "done" and drafter.draft_name == "zz-release"
    assert "discarded aa-tests" in drafter.reason and "at most one" in drafter.reason
    [draft] = list_drafts(drafter.config_dir)
    assert draft.name == "zz-release" and draft.session_id == "sess-1"
    assert not (root / "aa-tests").exists()


async def test_a_draft_written_before_a_failure_is_kept_and_said(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    drafter = _drafter(fake_llm, tmp_path)
    target = drafts_dir(drafter.config_dir) / "release" / "SKILL.md"
    fake_llm.push(Reply.tool_calls([("d1", "write_file", {"path": str(target), "content": _skill("release")})]), Reply.error(400))
    await _draft(drafter)
    assert drafter.state == "failed" and "its draft release is kept for review" in drafter.reason
    assert (target.parent / SOURCE_FILE).exists() and drafter.draft_name == "release"


def test_a_skill_edited_by_a_relative_path_skips_drafting(tmp_path: Path) -> None:
    project, config, home = tmp_path / "repo", tmp_path / "config", tmp_path / "home"
    project.mkdir()
    folders = [d.path.resolve() for d in skills_dirs(project, config, home)]
    drafter = SkillDrafter(config_dir=config, skill_dirs=lambda: folders, session_id="s", enabled=True, provider=object())  # type: ignore[arg-type]
    for i in range(AUTO_SKILL_THRESHOLD):
        drafter.tool_ran(ToolCall(f"c{i}", "edit"), {"path": f"src/module_{i}.py"})
    drafter.tool_ran(ToolCall("w0", "write_file"), {"path": "docs/skills/notes.md"})
    assert drafter.gate() == "", "a path outside every skills dir leaves the gate open"
    drafter.tool_ran(ToolCall("w1", "edit"), {"path": ".qwen/skills/x/SKILL.md"})
    assert drafter.gate() == "skills_modified_in_session"
    other = SkillDrafter(config_dir=config, skill_dirs=lambda: folders, session_id="s", enabled=True, provider=object())  # type: ignore[arg-type]
    other.tool_ran(ToolCall("w2", "write_file"), {"path": "src/../.agents/skills/y/SKILL.md"})
    assert other.skills_modified
