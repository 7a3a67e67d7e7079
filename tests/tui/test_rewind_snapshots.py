"""An SVG snapshot of the rewind picker over a resumed session (times pinned, newest message first)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from app.paths import Paths
from app.tui.screens.rewind import RewindScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import exchange, make_app, ready, record_session, wait_until

TERMINAL = (120, 36)
SESSION_ID = "7e717d00-0000-4000-8000-000000000000"


def test_rewind_picker(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:  # type: ignore[no-untyped-def]
    record_session(
        paths,
        exchange("why does the parser reject empty lines?", "It strips the line before checking for a comment.")
        + exchange("fix it and add a test for a file that ends without a newline", "Fixed; the new test covers it.")
        + exchange("[b]not markup[/b] — now update the changelog", "Updated CHANGELOG.md."),
        session_id=SESSION_ID,
        timestamp="2026-12-01T21:05:00.000Z",
        mtime=1_764_623_100,
        cwd=Path("/home/dev/project"),
    )
    app = make_app(fake_llm, workspace, resume=SESSION_ID)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RewindScreen), what="rewind picker")
        screen = pilot.app.screen
        assert isinstance(screen, RewindScreen)
        screen.filter_box.cursor_blink = False
        pilot.app.clear_notifications()
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)
