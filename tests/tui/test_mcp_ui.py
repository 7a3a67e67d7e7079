"""MCP servers in the TUI: the first frame never waits for them; /mcp shows them; a failure is said."""

from __future__ import annotations

from pathlib import Path

from app.config import load_settings
from app.paths import Paths
from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.mcp.servers import stdio_entry, write_user_settings
from tests.tui.helpers import SIZE, make_app, notifications, ready, wait_until


def _settings(server: FakeOpenAIServer, workspace: Path):  # type: ignore[no-untyped-def]
    settings = load_settings(Paths.for_cwd(workspace), {"model.base_url": server.base_url, "model.name": "fake-model", "model.api_key": "k"}, env={})
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    # The session's and the TUI's side queries would take replies scripted for the conversation.
    settings.sessions.auto_title = settings.suggestions.enabled = False
    return settings


async def test_a_hanging_server_does_not_hold_up_the_session_and_mcp_shows_it(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"stuck": stdio_entry("--hang-on-start"), "ok": stdio_entry()}, "mcp": {"connect_timeout": 120}})
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        runtime = app.runtime
        assert runtime is not None and runtime.mcp is not None
        assert runtime.mcp.connections["stuck"].status == "connecting"  # the session is open; the server still starts
        await wait_until(pilot, lambda: runtime.mcp.connections["ok"].status == "connected", max_iters=6000, what="ok connected")
        app.prompt.load_text("/mcp")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/mcp screen")
        body = app.screen.body
        assert "stuck  [connecting]  stdio · user" in body
        assert "ok  [connected]  stdio · user" in body and "mcp__ok__echo" in body and "tok" in body
        assert "prompts: /mcp__ok__review PATH [FOCUS]" in body and "@ok:notes://today" in body
        await pilot.press("escape")
        # A server's prompt is a slash command: its text is what is sent.
        from tests.fakes.openai_server import Reply

        fake_llm.push(Reply.text("reviewed"))
        app.prompt.load_text("/mcp__ok__review app.py")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(fake_llm.requests), max_iters=6000, what="the prompt's turn")
        users = [m["content"] for m in fake_llm.requests[0].body["messages"] if m["role"] == "user"]
        assert users[-1] == "Please review app.py, looking for bugs."


async def test_a_failing_server_is_said_once_and_reconnect_retries_it(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"broken": stdio_entry("--crash-on-start")}})
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: any("MCP server 'broken' failed" in n for n in notifications(app, "warning")), max_iters=6000, what="failure notice")
        app.prompt.load_text("/mcp")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/mcp screen")
        assert "cannot open the database (on purpose)" in app.screen.body  # the stderr tail
        await pilot.press("escape")
        app.prompt.load_text("/mcp reconnect broken")
        await pilot.press("enter")
        await wait_until(pilot, lambda: sum("MCP server 'broken' failed" in n for n in notifications(app, "warning")) == 2, max_iters=6000, what="second failure")
