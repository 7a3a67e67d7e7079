"""Keys of the prompt and the app: quitting, history, new lines, /commands, a user keymap."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from app.tui.screens.help import HelpScreen
from app.tui.widgets.message_views import AssistantView, UserView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    entry_views,
    make_app,
    make_settings,
    notifications,
    ready,
    rendered_text,
    send,
    type_text,
    views_of,
    wait_until,
)

# -- ctrl+c ----------------------------------------------------------------------------------------


async def test_ctrl_c_once_warns_and_twice_quits_keeping_the_draft(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "half a thought")
        await pilot.press("ctrl+j")
        await type_text(pilot, "and more")

        await pilot.press("ctrl+c")
        assert "Press ctrl+c again to quit." in notifications(app)
        assert app.is_running and app.return_value is None
        assert app.prompt.text == "half a thought\nand more", "ctrl+c does not clear the prompt"

        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.return_value is not None or not app.is_running, what="app exits")
    assert app.return_value == 0
    assert not fake_llm.requests, "nothing was sent"

    again = make_app(fake_llm, workspace)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert again.prompt.text == "half a thought\nand more"
        assert again.prompt.cursor_location == again.prompt.document.end


async def test_ctrl_c_presses_further_apart_than_the_window_do_not_quit(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+c")
        app._last_ctrl_c -= 5  # the first press was long ago
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and app.return_value is None


async def test_a_sent_prompt_leaves_no_draft_behind(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "sent already")
        await pilot.press("ctrl+c", "ctrl+c")
        await wait_until(pilot, lambda: app.return_value is not None or not app.is_running, what="app exits")
    again = make_app(fake_llm, workspace)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert again.prompt.text == ""


# -- history and new lines ---------------------------------------------------------------------------


async def test_up_and_down_walk_the_prompt_history_and_return_to_the_draft(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("one"), Reply.text("two"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first prompt")
        await send(pilot, "second prompt")
        await type_text(pilot, "draft")

        await pilot.press("up")
        assert app.prompt.text == "second prompt"
        await pilot.press("up")
        assert app.prompt.text == "first prompt"
        await pilot.press("up")
        assert app.prompt.text == "first prompt", "the oldest entry stays"
        await pilot.press("down")
        assert app.prompt.text == "second prompt"
        await pilot.press("down")
        assert app.prompt.text == "draft"
        assert len(fake_llm.requests) == 2

    # The history survives a restart.
    again = make_app(fake_llm, workspace)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert again.prompt.text == "second prompt"


async def test_up_moves_the_cursor_until_the_first_line(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("one"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "earlier")
        await type_text(pilot, "line one")
        await pilot.press("ctrl+j")
        await type_text(pilot, "line two")
        await pilot.press("up")
        assert app.prompt.text == "line one\nline two", "up on the second line moves the cursor"
        assert app.prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert app.prompt.text == "earlier"
        await pilot.press("down")
        assert app.prompt.text == "line one\nline two"


async def test_ctrl_j_inserts_a_newline_instead_of_sending(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Two lines received."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "first")
        await pilot.press("ctrl+j")
        await type_text(pilot, "second")
        assert app.prompt.text == "first\nsecond"
        assert not fake_llm.requests and not entry_views(app)

        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(views_of(app, AssistantView)) and app.status.state == "idle")
        [user] = views_of(app, UserView)
        assert rendered_text(user) == "first\nsecond"
        assert fake_llm.requests[0].messages[-1]["content"] == "first\nsecond"


async def test_enter_on_an_empty_prompt_sends_nothing(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("space", "enter")
        await pilot.pause()
        assert not entry_views(app) and not fake_llm.requests


# -- slash commands ----------------------------------------------------------------------------------


async def test_slash_shows_the_commands_and_tab_completes(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        hint = app.query_one("#command-hint", Static)
        assert not hint.display

        await pilot.press("slash")
        assert app.prompt.text == "/"
        assert hint.display
        listed = rendered_text(hint)
        for name in ("/help", "/new", "/resume", "/copy", "/tools", "/quit"):
            assert name in listed
        assert "(tab completes)" in listed

        await pilot.press("h", "e")
        assert rendered_text(hint).startswith("/help Show every key and command")
        assert "/new" not in rendered_text(hint)

        await pilot.press("tab")
        assert app.prompt.text == "/help "
        assert app.focused is app.prompt, "tab completed; focus did not move"

        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help opened")
        assert app.prompt.text == ""
        assert not fake_llm.requests

        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert not hint.display, "the hint row goes away with the command text"


async def test_an_unknown_command_keeps_the_text_and_says_so(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "/frobnicate")
        assert not app.query_one("#command-hint", Static).display, "nothing matches"
        await pilot.press("enter")
        await pilot.pause()
        assert app.prompt.text == "/frobnicate"
        assert any("Unknown command /frobnicate" in m for m in notifications(app, "warning"))
        assert not fake_llm.requests and not entry_views(app)


async def test_a_path_is_a_prompt_not_a_command(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("It is a hosts file."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/etc/hosts looks odd")
        assert fake_llm.requests[0].messages[-1]["content"] == "/etc/hosts looks odd"


async def test_new_starts_a_fresh_session(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("first answer"), Reply.text("fresh answer"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "remember this")
        old_id = app.runtime.session_id  # type: ignore[union-attr]
        assert f"session {old_id[:8]}" in rendered_text(app.status)
        assert entry_views(app)

        await type_text(pilot, "/new")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id != old_id, what="new session")
        await ready(pilot)
        new_id = app.runtime.session_id  # type: ignore[union-attr]
        status = rendered_text(app.status)
        assert f"session {new_id[:8]}" in status and old_id[:8] not in status
        assert entry_views(app) == [] and app.conversation.transcript.entries == []
        assert app.prompt.text == ""
        assert any("New session started" in m for m in notifications(app))

        await send(pilot, "hello again")
        assert [m["role"] for m in fake_llm.requests[-1].conversation] == ["user"], "the old history is gone"
        old_file = app.paths.chats_dir / f"{old_id}.jsonl"
        assert "remember this" in old_file.read_text(encoding="utf-8"), "the old session stays recorded"


# -- a user keymap -----------------------------------------------------------------------------------


async def test_a_user_keymap_moves_help_to_f2(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    settings = make_settings(fake_llm)
    settings.keymap = {"help": "f2"}
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen), "f1 no longer opens help"

        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help on f2")
        body = rendered_text(app.screen.query_one("#help-body Static", Static))
        assert "f2" in body.split("Help")[0].splitlines()[-1], "the help screen shows the remapped key"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_ctrl_y_copies_the_last_answer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Copy ", "me."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+y")
        assert "There is no answer to copy yet." in notifications(app, "warning")
        await send(pilot, "say something")
        await type_text(pilot, "unsent")
        await pilot.press("ctrl+y")
        assert app.clipboard == "Copy me."
        assert "Copied the last answer (8 characters)." in notifications(app)
        assert app.prompt.text == "unsent"


# -- readline keys and the draft ------------------------------------------------------------------


async def test_ctrl_u_deletes_to_the_start_of_the_line_as_in_readline(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    """ctrl+u is the shell's "kill to start of line" (it showed earlier messages instead)."""
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "a wrong start")
        await pilot.press("ctrl+u")
        assert app.prompt.text == ""
        await type_text(pilot, "first line")
        await pilot.press("ctrl+j")
        await type_text(pilot, "second line")
        await pilot.press("ctrl+u")
        assert app.prompt.text == "first line\n", "only the cursor's line, up to the cursor, goes"
        assert "This is the start of the session." not in notifications(app)


async def test_a_new_session_starts_with_an_empty_prompt_and_the_draft_is_one_up_arrow_away(
    fake_llm: FakeOpenAIServer, workspace: Path
) -> None:
    """ctrl+n is "start over": unsent words written for the old conversation are not carried into the
    new one (where Enter would send them out of context), and not lost either: they go to the history."""
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        before = app.runtime.session_id if app.runtime else ""
        await type_text(pilot, "a thought for the old session")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id != before, what="new session")
        await ready(pilot)
        assert app.prompt.text == ""
        assert any("↑" in n for n in notifications(app)), "the person is told where the draft went"
        await pilot.press("up")
        assert app.prompt.text == "a thought for the old session"
        from app.tui import prompt_store

        assert prompt_store.load_input_history(app.paths)[-1] == "a thought for the old session", "it survives a restart too"
