"""Modals on a small terminal: the keys stay in view and long text scrolls instead of being cut off."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget

from app.config import Settings
from app.core.events import Decision
from app.core.session.listing import list_sessions
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.first_run import FirstRunScreen
from app.tui.screens.help import HelpScreen
from app.tui.screens.sessions import SessionPickerScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import exchange, make_app, ready, record_session, wait_until

SMALL = (80, 24)
LONG_DIFF = "--- a/big.txt\n+++ b/big.txt\n@@ -1,3 +1,60 @@\n" + "\n".join(f"+line {n}" for n in range(60))


def _inside(widget: Widget, dialog: Widget) -> bool:
    """Whether the widget is drawn entirely within the dialog's border and padding."""
    inner: Region = dialog.content_region
    return inner.contains_region(widget.region)


@pytest.mark.parametrize("size", [SMALL, (120, 36)])
async def test_a_long_diff_scrolls_and_the_approval_keys_stay_visible(
    fake_llm: FakeOpenAIServer, workspace: Path, size: tuple[int, int]
) -> None:
    app = make_app(fake_llm, workspace)
    answers: list[Decision | None] = []
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        screen = ApprovalScreen(tool_name="write_file", summary="write_file big.txt", detail=LONG_DIFF, tool_kind="edit")
        app.push_screen(screen, answers.append)
        await pilot.pause()
        dialog = screen.query_one("#approval-dialog")
        detail = screen.query_one("#approval-detail")
        for part in ("#approval-title", "#approval-summary", "#approval-keys"):
            assert _inside(screen.query_one(part), dialog), f"{part} is cut off at {size}"
        assert _inside(detail, dialog)
        assert detail.max_scroll_y > 0, "the diff scrolls"
        detail.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert detail.scroll_y == detail.max_scroll_y
        await pilot.press("y")
        assert answers == [Decision.APPROVE]


async def test_help_scrolls_to_the_commands_on_a_small_terminal(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        body = app.screen.query_one("#help-body")
        assert _inside(body, app.screen.query_one("#help-dialog"))
        assert body.max_scroll_y > 0
        assert app.screen.focused is body, "the keys scroll the help text"
        await pilot.press("end")
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("pageup")
        assert body.scroll_y < body.max_scroll_y, "pageup scrolls the help, not the conversation behind it"


async def test_first_run_text_scrolls_on_a_small_terminal(workspace: Path) -> None:
    app = make_app(None, workspace, settings=Settings())
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await pilot.pause()
        body = app.screen.query_one("#first-run-body")
        assert _inside(body, app.screen.query_one("#first-run-dialog"))
        assert body.max_scroll_y > 0


async def test_a_long_session_list_stays_inside_the_picker(fake_llm: FakeOpenAIServer, workspace: Path, paths) -> None:  # type: ignore[no-untyped-def]
    for n in range(30):
        record_session(paths, exchange(f"prompt {n}", "ok"), session_id=f"{n:08d}-0000-4000-8000-000000000000", mtime=1_700_000_000 + n)
    assert len(list_sessions(paths.chats_dir)) == 30
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        options = app.screen.query_one("#sessions-list")
        assert _inside(options, app.screen.query_one("#sessions-dialog"))
        await pilot.press("end")
        assert options.highlighted == 29
        assert options.scroll_y == options.max_scroll_y > 0, "the last session is scrolled into view"
