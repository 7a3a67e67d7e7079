"""Small things people notice: each said once, in words, with brackets kept."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Static

from app.tui.screens.approval import ApprovalScreen, always_covers
from app.tui.widgets.message_views import NoticeView, UserView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, notifications, ready, rendered_text, send, views_of, wait_until, write_instructions


async def test_a_shell_approval_says_the_command_once_and_what_always_allows(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "run_shell_command", {"command": "git status"})]), Reply.text("clean"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "status?", wait=False)
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="approval")
        screen = app.screen
        texts = [rendered_text(w) for w in screen.query(Static) if not w.children]
        assert sum("git status" in t for t in texts) == 1, texts
        keys = rendered_text(screen.query_one("#approval-keys"))
        assert "a allows for this session: run_shell_command(git *) — every git command, whatever its arguments" in keys
        await pilot.press("n")


def test_always_covers_in_words() -> None:
    assert always_covers(["run_shell_command(git *)", "run_shell_command(git)"]) == (
        "run_shell_command(git *) — every git command, whatever its arguments"
    )
    assert always_covers(["edit"]) == "edit — every call of this tool"
    assert always_covers(["run_shell_command(FOO=1 make test)"]) == "run_shell_command(FOO=1 make test)"
    assert always_covers([]) == ""


async def test_toasts_keep_bracketed_text(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.notify("Type /compress [focus] to keep [b]this[/b]")
        await pilot.pause()
        assert "Type /compress [focus] to keep [b]this[/b]" in notifications(app)
        [shown] = [n for n in app._notifications if "[focus]" in n.message]
        assert shown.markup is False, "a toast is plain text: [focus] is not read as markup and dropped"


async def test_the_status_line_counts_the_seconds_of_a_running_turn(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        status = app.status
        status.state = "waiting for the model…"
        status.turn_started = time.monotonic() - 7.2
        assert "waiting for the model… 7 s" in rendered_text(status)
        status.state = "waiting for approval"
        assert "waiting for approval  ·" in rendered_text(status) + "  ·", "no clock while a person decides"
        status.state = "idle"
        status.turn_started = None
        assert " s " not in rendered_text(status)


async def test_the_instruction_files_loaded_are_said_when_the_session_opens(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        notices = [rendered_text(n) for n in views_of(app, NoticeView)]
        assert any(n.startswith("Instruction files: QWEN.md (") and n.endswith("· /memory show reads them as sent") for n in notices), notices


async def test_remember_shows_what_was_typed_not_the_internal_prompt(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Saved."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/remember we deploy on Fridays")
        [user] = views_of(app, UserView)
        assert rendered_text(user) == "/remember we deploy on Fridays"
        sent = fake_llm.requests[-1].messages[-1]["content"]
        assert "we deploy on Fridays" in sent and sent != "/remember we deploy on Fridays"


async def test_page_down_and_end_scroll_a_context_report(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    from app.tui.screens.text_view import TextScreen

    write_instructions(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=(100, 16)) as pilot:
        await ready(pilot)
        await send(pilot, "/context detail", wait=False)
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="report")
        body = app.screen.query_one("#text-body")
        await pilot.press("pagedown")
        first = body.scroll_y
        assert first > 0
        await pilot.press("end")
        assert body.scroll_y >= first and body.scroll_y == body.max_scroll_y


async def test_ctrl_y_after_an_error_retries_without_repeating_the_message(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.error(503, {"error": {"message": "overloaded"}}), Reply.text("Here it is."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "explain the parser")
        assert app.status.state == "error"
        assert any(rendered_text(n) == "ctrl+y retries; your message is kept." for n in views_of(app, NoticeView))
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: len(fake_llm.requests) == 2, what="retried")
        from tests.tui.helpers import wait_turn_done

        await wait_turn_done(pilot)
        retried = fake_llm.requests[-1].messages
        assert [m["content"] for m in retried if m["role"] == "user"].count("explain the parser") == 1
        assert app.runtime is not None and app.runtime.agent.history[-1].content == "Here it is."
        assert [m.role for m in app.runtime.agent.history].count("user") == 1
        # With the answer in, ctrl+y copies it again (nothing left to retry).
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert len(fake_llm.requests) == 2
        assert any(n.startswith("Copied the last answer") for n in notifications(app))
