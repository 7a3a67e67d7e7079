"""The person hears about a background drafting run once: a new draft (and where to review it), or why it failed.
Also the drafts panel's other keep choice: u moves a draft into the user skills dir."""

from __future__ import annotations

from pathlib import Path

from app.context.skills.drafts import AUTO_SKILL_THRESHOLD, drafts_dir
from app.paths import Paths
from app.tui.screens.skills import KeepDraftScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, notifications, ready, send, wait_until
from tests.tui.test_skill_drafts_panel import DRAFT, _draft, _select_draft

ANNOUNCED = "Drafted a skill from this session: release-steps — F4 to review it"


async def _start_drafting(pilot, server: FakeOpenAIServer, *drafting: Reply) -> None:  # type: ignore[no-untyped-def]
    """One short turn that crosses the threshold; the drafting agent's requests get ``drafting``."""
    app = await ready(pilot)
    app.runtime.drafter.tool_calls = AUTO_SKILL_THRESHOLD  # as if the session had made that many calls
    server.push(Reply.text("Done."), *drafting)
    await send(pilot, "finish the release")


async def test_a_new_draft_is_announced_once(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    target = drafts_dir(Paths.for_cwd(workspace).config_dir) / "release-steps" / "SKILL.md"
    async with app.run_test(size=SIZE) as pilot:
        write = Reply.tool_calls([("d1", "write_file", {"path": str(target), "content": DRAFT})])
        await _start_drafting(pilot, fake_llm, write, Reply.text("Drafted one skill."))
        await wait_until(pilot, lambda: ANNOUNCED in notifications(app), what="draft announced")
        fake_llm.push(Reply.text("Anything else?"))
        await send(pilot, "thanks")
        await app.runtime.drafter.drain(5)
        await pilot.pause()
        assert notifications(app).count(ANNOUNCED) == 1
        assert not notifications(app, "warning")


async def test_a_failed_drafting_run_is_a_warning_with_its_reason(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        refused = Reply.error(400, {"error": {"message": "model not loaded", "type": "invalid_request_error"}})
        await _start_drafting(pilot, fake_llm, refused)
        await wait_until(pilot, lambda: notifications(app, "warning"), what="failure said")
        [warning] = notifications(app, "warning")
        assert warning.startswith("Could not draft a skill from this session:") and "model not loaded" in warning
        assert not any(n.startswith("Drafted a skill") for n in notifications(app))


async def test_a_draft_kept_as_a_user_skill_moves_to_the_user_skills_dir(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    folder = _draft(workspace)
    config_dir = Paths.for_cwd(workspace).config_dir
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _select_draft(pilot, "release-steps")
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, KeepDraftScreen), what="where")
        await pilot.press("u")
        await wait_until(pilot, lambda: any("Kept release-steps" in n for n in notifications(app)), what="kept")
        assert (config_dir / "skills" / "release-steps" / "SKILL.md").read_text() == DRAFT
        assert not folder.exists() and not (workspace / ".qwen" / "skills" / "release-steps").exists()
        assert "release-steps" in {s.name for s in app.runtime.skills.available()}
