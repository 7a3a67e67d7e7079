"""No endpoint configured: the first-run screen explains the setup; everything else still works."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, Static

from app.config import Settings
from app.tui.screens.first_run import FirstRunScreen
from app.tui.screens.help import HelpScreen
from app.tui.screens.sessions import SessionPickerScreen
from tests.tui.helpers import SIZE, entry_views, make_app, notifications, ready, rendered_text, type_text, wait_until


async def test_first_run_screen_explains_the_setup_and_the_app_still_works(workspace: Path) -> None:
    app = make_app(None, workspace, settings=Settings())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstRunScreen), what="first-run screen")
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, FirstRunScreen)
        text = rendered_text(screen.query_one("#first-run-body Static", Static))
        for needle in ("No model endpoint is configured", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            assert needle in text
        assert str(app.paths.user_settings_file) in text
        assert str(app.paths.project_settings_file) in text
        assert "no model configured" in rendered_text(app.status)

        # What the screen promises works right away, on top of it.
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help over the first-run screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, FirstRunScreen), what="back to the first-run screen")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), what="picker over the first-run screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, FirstRunScreen))

        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FirstRunScreen), what="first-run closed")
        assert app.focused is app.prompt

        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))

        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), what="picker")
        empty = app.screen.query_one("#sessions-list", OptionList).get_option_at_index(0)
        assert "No sessions recorded" in str(empty.prompt) and empty.disabled
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionPickerScreen))

        await type_text(pilot, "is anyone there?")
        await pilot.press("enter")
        await pilot.pause()
        assert app.prompt.text == "is anyone there?", "the words stay in the prompt"
        errors = notifications(app, "error")
        assert any("OPENAI_BASE_URL" in m and "No model endpoint" in m for m in errors)
        assert entry_views(app) == []
        assert not app.paths.chats_dir.exists() or not any(app.paths.chats_dir.iterdir()), "no empty session recorded"


async def test_a_remapped_help_key_works_on_the_first_run_screen(workspace: Path) -> None:
    settings = Settings()
    settings.keymap = {"help": "f2"}
    app = make_app(None, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstRunScreen), what="first-run screen")
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, FirstRunScreen)
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help on f2")
