"""A snapshot of /mcp: one server connected with its tools and tokens, one failed with its stderr."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.config import load_settings
from app.paths import Paths
from app.tui.screens.text_view import TextScreen
from tests.mcp.servers import stdio_entry, write_user_settings
from tests.tui.helpers import make_app, ready, wait_until

SESSION_ID = "5e55104d-0000-4000-8000-000000000001"


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: SESSION_ID)


def test_mcp_screen(snap_compare, tmp_path: Path, hermetic_home: Path, pinned: None) -> None:  # type: ignore[no-untyped-def]
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    write_user_settings(hermetic_home, {"mcpServers": {"tracker": stdio_entry(trust=True), "db": stdio_entry("--crash-on-start")}})
    app = make_app(None, workspace, settings=load_settings(Paths.for_cwd(workspace), env={}))

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        if type(app.screen).__name__ == "FirstRunScreen":
            await pilot.press("escape")
        manager = app.runtime.mcp
        await wait_until(pilot, lambda: all(c.settled for c in manager.connections.values()), max_iters=20_000, what="servers settled")
        for connection in manager.connections.values():  # the interpreter's and the checkout's paths vary by machine
            connection.config = replace(connection.config, command="fake-mcp-server", args=("--crash-on-start",) if connection.name == "db" else ())
        app.clear_notifications()  # the failure's toast times out; the screen is what is pinned
        app.action_mcp_command("")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/mcp")

    assert snap_compare(app, terminal_size=(110, 40), run_before=run_before)
