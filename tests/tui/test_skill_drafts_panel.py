"""Drafts in the skills panel: Enter reads, k keeps (user or project), x discards after a confirmation."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import OptionList

from app.context.skills.drafts import SOURCE_FILE, drafts_dir, list_drafts
from app.paths import Paths
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.skills import KeepDraftScreen, SkillsScreen
from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import SIZE, make_app, notifications, ready, wait_until

DRAFT = "---\nname: release-steps\ndescription: Cut a release of this project\n---\n1. Bump the version.\n"


def _draft(workspace: Path, name: str = "release-steps") -> Path:
    folder = drafts_dir(Paths.for_cwd(workspace).config_dir) / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(DRAFT.replace("release-steps", name), encoding="utf-8")
    (folder / SOURCE_FILE).write_text(json.dumps({"sessionId": "abcdef12-0000", "createdAt": 1.0}))
    return folder


async def _select_draft(pilot, name: str) -> SkillsScreen:  # type: ignore[no-untyped-def]
    await pilot.press("f4")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SkillsScreen), what="panel")
    screen = pilot.app.screen
    option_list = screen.query_one(OptionList)
    index = next(i for i in range(option_list.option_count) if (option_list.get_option_at_index(i).id or "").endswith(f"/{name}"))
    option_list.highlighted = index
    return screen


async def test_drafts_are_listed_read_and_kept(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _draft(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _select_draft(pilot, "release-steps")
        prompts = [str(screen.query_one(OptionList).get_option_at_index(i).prompt) for i in range(screen.query_one(OptionList).option_count)]
        assert any(p.startswith("Drafts") for p in prompts)
        assert any("release-steps (session abcdef12)" in p for p in prompts)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="draft text")
        assert app.screen.body == DRAFT
        await pilot.press("escape")
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, KeepDraftScreen), what="where")
        await pilot.press("p")
        await wait_until(pilot, lambda: any("Kept release-steps" in n for n in notifications(app)), what="kept")
        assert (workspace / ".qwen" / "skills" / "release-steps" / "SKILL.md").read_text() == DRAFT
        assert "release-steps" in {s.name for s in app.runtime.skills.available()}


async def test_discard_asks_first(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    folder = _draft(workspace, "old-draft")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _select_draft(pilot, "old-draft")
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm")
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillsScreen), what="back")
        assert folder.exists()
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirm again")
        await pilot.press("y")
        await wait_until(pilot, lambda: not folder.exists(), what="discarded")
        assert list_drafts(Paths.for_cwd(workspace).config_dir) == []
