"""A remapped key works where the prompt would take it, clashes are told at start, and the palette finds
every command and skill; its screenshot entry saves a file and says where."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import OptionList

from app.tui.screens.help import HelpScreen
from app.tui.widgets.context_map import ContextMap
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import SIZE, make_app, make_settings, notifications, ready, wait_until


async def test_help_on_f6_works_from_the_prompt(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    settings = make_settings(fake_llm)
    settings.keymap = {"help": "f6"}
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.focused is app.prompt
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help on f6")
        assert "keymap: f6 is also the prompt's 'Select line'; help takes it everywhere" in notifications(app, "warning")


async def test_help_on_f2_is_told_and_the_map_loses_its_key(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    settings = make_settings(fake_llm)
    settings.keymap = {"help": "f2"}
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert any(n.startswith("keymap: f2 now runs help; context_map (Context map) has no key left") for n in notifications(app, "warning"))
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help on f2")
        assert not isinstance(app.focused, ContextMap)
        assert "(no key)" in str(app.screen.query_one("#help-body").query("Static").first().render())


async def _palette_results(pilot, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
    await pilot.press(*query)
    results = app.screen.query_one(OptionList)
    await wait_until(pilot, lambda: results.option_count > 0, what=f"results for {query}")
    await pilot.pause(0.3)
    return [str(results.get_option_at_index(i).prompt) for i in range(results.option_count)]


async def test_the_palette_finds_commands_and_skills(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert any("/memory" in r for r in await _palette_results(pilot, "mem"))
        await pilot.press("escape")
        assert any("/compress" in r for r in await _palette_results(pilot, "comp"))
        await pilot.press("escape")
        results = await _palette_results(pilot, "sk")
        assert any("/skills" in r for r in results)
        await pilot.press("escape")
        assert any("/review" in r for r in await _palette_results(pilot, "revi")), "skills are in the palette too"


async def test_the_palette_screenshot_is_saved_and_its_path_told(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        results = await _palette_results(pilot, "screensh")
        assert results and results[0].startswith("Screenshot")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(n.startswith("Saved the screenshot to ") for n in notifications(app)), what="saved")
        [saved] = [n for n in notifications(app) if n.startswith("Saved the screenshot to ")]
        path = Path(saved.removeprefix("Saved the screenshot to ").rstrip("."))
        assert path.is_file() and path.read_text(encoding="utf-8").startswith("<svg")
        assert path.parent == app.paths.data_dir / "screenshots"
