"""The skills panel: levels and statuses, r reads SKILL.md, space toggles and saves skills.disabled."""

from __future__ import annotations

from pathlib import Path

import yaml
from textual.widgets import OptionList

from app.paths import Paths
from app.tui.screens.skills import SkillsScreen
from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import SIZE, make_app, notifications, ready, wait_until

BROKEN = "---\nname: has spaces\ndescription: x\n---\nbody\n"
WAITING = "---\nname: tsx-rules\ndescription: TSX conventions\npaths: ['src/**/*.tsx']\n---\nUse hooks.\n"


def _skills(workspace: Path) -> None:
    for name, text in (("broken", BROKEN), ("tsx-rules", WAITING)):
        folder = workspace / ".qwen" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")


def _options(screen: SkillsScreen) -> list[str]:
    option_list = screen.query_one(OptionList)
    return [str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count)]


async def _open(pilot) -> SkillsScreen:  # type: ignore[no-untyped-def]
    await pilot.press("f4")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SkillsScreen), what="skills panel")
    return pilot.app.screen


async def test_panel_lists_levels_and_statuses(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _skills(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        options = _options(screen)
        assert options[0] == "Project"
        assert any(o.startswith("◌ tsx-rules  waiting for a matching file") for o in options)
        assert any(o.startswith("! broken  error") for o in options)
        assert "Bundled" in options and any(o.startswith("● review  available") for o in options)


async def test_r_reads_the_skill_file(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _skills(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        index = next(i for i, o in enumerate(_options(screen)) if "tsx-rules" in o)
        screen.query_one(OptionList).highlighted = index
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="SKILL.md")
        assert app.screen.body == WAITING


async def test_space_disables_saves_and_enables_again(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        index = next(i for i, o in enumerate(_options(screen)) if " review " in o)
        screen.query_one(OptionList).highlighted = index
        await pilot.press("space")
        await wait_until(pilot, lambda: any("Skill review disabled" in n for n in notifications(app)), what="saved")
        settings_file = Paths.for_cwd(workspace).user_settings_file
        assert yaml.safe_load(settings_file.read_text())["skills"]["disabled"] == ["review"]
        assert any(o.startswith("✗ review  disabled") for o in _options(screen))
        assert "review" not in {s.name for s in app.runtime.skills.available()}
        await pilot.press("space")
        await wait_until(pilot, lambda: any("Skill review enabled" in n for n in notifications(app)), what="enabled")
        assert yaml.safe_load(settings_file.read_text())["skills"]["disabled"] == []


def test_skills_panel_snapshot(snap_compare, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: "5e55104d-0000-4000-8000-000000000000")
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    _skills(workspace)
    app = make_app(None, workspace)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        while not isinstance(app.screen, SkillsScreen):
            if type(app.screen).__name__ == "FirstRunScreen":
                await pilot.press("escape")
            await pilot.press("f4")
            await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 34), run_before=run_before)


def test_cli_lists_the_same(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    _skills(workspace)
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "app", "skills", "list", "--json"], cwd=workspace, capture_output=True, text=True, env={**__import__("os").environ, "PYTHONPATH": str(root)}, timeout=60)
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["tsx-rules"]["status"] == "waiting" and rows["tsx-rules"]["paths"] == ["src/**/*.tsx"]
    assert rows["broken"]["status"] == "error" and rows["broken"]["message"]
    assert rows["review"]["level"] == "bundled"
    text = subprocess.run([sys.executable, "-m", "app", "skills", "list"], cwd=workspace, capture_output=True, text=True, env={**__import__("os").environ, "PYTHONPATH": str(root)}, timeout=60).stdout
    assert "Project:" in text and "tsx-rules" in text and "waiting for a matching file" in text


async def test_disabling_a_project_skill_is_kept_for_this_project_only(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    _skills(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot)
        index = next(i for i, o in enumerate(_options(screen)) if "tsx-rules" in o)
        screen.query_one(OptionList).highlighted = index
        await pilot.press("space")
        await wait_until(pilot, lambda: any("Skill tsx-rules disabled for this project" in n for n in notifications(app)), what="saved")
    paths = Paths.for_cwd(workspace)
    assert not paths.user_settings_file.exists(), "nothing written to the user-wide settings"
    assert not (workspace / ".qwen" / "settings.yaml").exists(), "nothing written into the repository"
    from app.context.skills.switches import project_disabled

    assert project_disabled(paths) == ["tsx-rules"]
    # Another project with a skill of the same name keeps it.
    other = tmp_path / "other"
    other.mkdir()
    _skills(other)
    from app.runtime import build_runtime
    from tests.tui.helpers import make_settings

    runtime = build_runtime(make_settings(fake_llm), Paths.for_cwd(other))
    assert "tsx-rules" not in runtime.skills.disabled
    runtime_here = build_runtime(make_settings(fake_llm), paths)
    assert "tsx-rules" in runtime_here.skills.disabled
