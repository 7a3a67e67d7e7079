"""Earlier sessions: the picker, --resume, torn files, and a long session kept to a bounded window."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import OptionList

from app.core.history import Message
from app.paths import Paths
from app.tui.screens.help import HelpScreen
from app.tui.screens.sessions import SessionPickerScreen
from app.tui.widgets.conversation import EarlierMarker
from app.tui.widgets.message_views import AssistantView, NoticeView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    entry_views,
    exchange,
    make_app,
    make_settings,
    markdown_source,
    notifications,
    ready,
    record_lines,
    record_session,
    rendered_text,
    send,
    tool_exchange,
    type_text,
    views_of,
    wait_until,
)

OLDER = "11111111-1111-4111-8111-111111111111"
NEWER = "22222222-2222-4222-8222-222222222222"
T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC


def _two_sessions(paths: Paths) -> None:
    record_session(
        paths,
        [
            *exchange("fix the parser", "I'll look at it."),
            *tool_exchange("call_1", "read_file", {"path": "parser.py"}, "def parse(): ..."),
            Message(role="assistant", content="The parser is fixed."),
        ],
        session_id=OLDER,
        mtime=T0,
    )
    record_session(paths, exchange("write the docs", "Docs written."), session_id=NEWER, mtime=T0 + 3600)


def _columns(label: str) -> list[str]:
    """A picker row's columns, without the size (it depends on the test's tmp path)."""
    parts = [part.strip() for part in label.split("  ") if part.strip()]
    return [part for part in parts if not re.fullmatch(r"[\d.]+ [KMGT]?B", part)]


def _texts(app) -> list[str]:  # type: ignore[no-untyped-def]
    out = []
    for view in entry_views(app):
        out.append(markdown_source(view) if isinstance(view, AssistantView) else rendered_text(view))
    return out


async def test_picker_lists_sessions_newest_first_and_opens_the_older_one(
    fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths
) -> None:
    _two_sessions(paths)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        fresh = app.runtime.session_id  # type: ignore[union-attr]
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), what="picker")
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [NEWER, OLDER]
        assert _columns(labels[0]) == ["2023-11-14 23:13", "write the docs", "22222222"]
        assert _columns(labels[1]) == ["2023-11-14 22:13", "fix the parser", "11111111"]
        assert options.highlighted == 0

        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id == OLDER, what="older session opened")
        await ready(pilot)
        assert not isinstance(app.screen, SessionPickerScreen)
        assert _texts(app) == ["fix the parser", "I'll look at it.", "▶ ✓ read_file parser.py", "The parser is fixed."]
        assert f"session {OLDER[:8]}" in rendered_text(app.status)
        assert app.runtime.session_id != fresh  # type: ignore[union-attr]

        # The conversation goes on where it stopped, and is appended to the same file.
        fake_llm.push(Reply.text("Yes, all tests pass."))
        await send(pilot, "does it pass?")
        sent = fake_llm.requests[-1].conversation
        assert [m["role"] for m in sent] == ["user", "assistant", "assistant", "tool", "assistant", "user"]
        assert record_lines(app)[-1]["message"]["content"] == "Yes, all tests pass."


async def test_escape_closes_the_picker_without_switching(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _two_sessions(paths)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        current = app.runtime.session_id  # type: ignore[union-attr]
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionPickerScreen))
        await pilot.pause()
        assert app.runtime.session_id == current and entry_views(app) == []  # type: ignore[union-attr]


async def test_resume_at_start_shows_the_old_messages(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _two_sessions(paths)
    app = make_app(fake_llm, workspace, resume=OLDER[:8])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.runtime.session_id == OLDER  # type: ignore[union-attr]
        assert _texts(app)[0] == "fix the parser"
        assert _texts(app)[-1] == "The parser is fixed."
        assert not notifications(app)


async def test_resuming_an_unknown_session_says_so_and_starts_fresh(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace, resume="deadbeef")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        [error] = views_of(app, NoticeView)
        assert error.has_class("error") and "no session matches 'deadbeef'" in rendered_text(error)
        assert any("deadbeef" in m for m in notifications(app, "error"))
        assert app.runtime is not None and app.runtime.agent is not None


async def test_a_torn_last_line_warns_and_the_session_still_loads(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    path = record_session(paths, exchange("first question", "First answer."), session_id=OLDER)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"uuid": "torn", "type": "user", "message": {"role": "us')  # the process died here
    app = make_app(fake_llm, workspace, resume=OLDER)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert _texts(app)[:2] == ["first question", "First answer."]
        [notice] = views_of(app, NoticeView)
        assert "line 3" in rendered_text(notice) and "could not be read" in rendered_text(notice)
        assert any("could not be read" in m for m in notifications(app, "warning"))

        fake_llm.push(Reply.text("Still here."))
        await send(pilot, "second question")
        assert markdown_source(views_of(app, AssistantView)[-1]) == "Still here."
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[2].endswith('"role": "us'), "the torn line is left alone"
        assert '"second question"' in lines[3], "the next record starts on its own line"


async def test_a_long_session_keeps_a_bounded_window_of_widgets(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    messages: list[Message] = []
    for n in range(150):
        messages += exchange(f"question {n}", f"answer {n}")
    record_session(paths, messages, session_id=OLDER)
    settings = make_settings(fake_llm, max_mounted_messages=30)
    app = make_app(fake_llm, workspace, settings=settings, resume=OLDER)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        conversation = app.conversation
        assert len(conversation.transcript.entries) == 300
        assert conversation.mounted_count == 30 and len(entry_views(app)) == 30
        assert rendered_text(entry_views(app)[0]) == "question 135"
        assert markdown_source(entry_views(app)[-1]) == "answer 149"
        marker = conversation.query_one(EarlierMarker)
        assert marker.display and rendered_text(marker) == "↑ 270 earlier messages — pageup at the top shows more"
        assert conversation.is_vertical_scroll_end, "a resumed session opens at its end"

        await pilot.press("ctrl+home")
        assert len(entry_views(app)) == 50
        assert rendered_text(entry_views(app)[0]) == "question 125"
        assert rendered_text(marker) == "↑ 250 earlier messages — pageup at the top shows more"
        assert conversation.scroll_y == 0, "the view moves to the newly shown messages"
        assert marker.region.y >= conversation.region.y and marker.region.bottom <= conversation.region.bottom
        await pilot.press("pageup")  # already at the top: pageup shows the next older ones
        assert len(entry_views(app)) == 70 and rendered_text(entry_views(app)[0]) == "question 115"

        # Back at the bottom, new turns shrink the window to the limit again.
        for n in range(2):
            fake_llm.push(Reply.text(f"new answer {n}"))
            app.action_scroll_conversation_end()
            await send(pilot, f"new question {n}")
        assert len(entry_views(app)) == 30
        assert markdown_source(entry_views(app)[-1]) == "new answer 1"
        assert rendered_text(marker) == "↑ 274 earlier messages — pageup at the top shows more"


async def test_ctrl_home_at_the_start_of_a_session_says_so(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+home")
        assert "This is the start of the session." in notifications(app)
        assert not app.conversation.query_one(EarlierMarker).display


async def test_page_keys_scroll_the_conversation_while_the_prompt_has_focus(
    fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths
) -> None:
    messages: list[Message] = []
    for n in range(20):
        messages += exchange(f"question {n}", f"answer {n}")
    record_session(paths, messages, session_id=OLDER)
    app = make_app(fake_llm, workspace, resume=OLDER)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        conversation = app.conversation
        await type_text(pilot, "line one")
        assert app.focused is app.prompt and conversation.is_vertical_scroll_end
        bottom = conversation.scroll_y

        await pilot.press("pageup")
        await wait_until(pilot, lambda: conversation.scroll_y < bottom, what="scrolled up")
        assert app.prompt.text == "line one"
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: conversation.scroll_y == bottom, what="scrolled back down")

        # Under a modal the same keys belong to the modal, not to the hidden conversation.
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        mounted = conversation.mounted_count
        await pilot.press("pageup", "ctrl+home")
        assert conversation.scroll_y == bottom and conversation.mounted_count == mounted
