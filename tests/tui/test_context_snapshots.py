"""SVG snapshots of the context map panel, a block of it opened, and the /context report (plain ``def`` tests).

Pinned besides what test_snapshots.py pins: the session prelude's date, OS release and
paths (the map counts its tokens, and its text can be opened), the report's timestamp,
the workspace path where a block's source names it, and the environment variables
that choose sections of the system prompt.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from string import Template

import pytest
from textual.pilot import Pilot

from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply, split_words
from app.config import Settings
from tests.tui.helpers import make_app, make_settings, ready, run_command, send, text_screen, wait_until, write_instructions

TERMINAL = (160, 40)
SESSION_ID = "5e55104d-0000-4000-8000-000000000000"
PROJECT = "/home/dev/project"
PRELUDE_FACTS = {"date": "2025-01-15", "platform": "Linux 6.8.0", "cwd": PROJECT, "root": PROJECT}

ANSWER = """This is a **tiny demo** workspace for the TUI tests.

- `README.md` describes it in one line
- `QWEN.md` asks for 4-space indents and `make test` before committing
"""


def _settings(server: FakeOpenAIServer) -> Settings:
    """Auto-memory off: its section names the temporary memory directory, which differs on every run."""
    settings = make_settings(server)
    settings.memory.enabled = False
    return settings


class _PinnedPrelude(Template):
    """The prelude template with the facts that differ between machines and days fixed."""

    def substitute(self, mapping=None, /, **kws):  # type: ignore[no-untyped-def,override]
        return super().substitute({**(mapping or {}), **kws, **PRELUDE_FACTS})


class _PinnedDatetime(datetime):
    @classmethod
    def fromtimestamp(cls, t, tz=None):  # type: ignore[no-untyped-def,override]
        return datetime(2025, 1, 15, 9, 30, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: SESSION_ID)
    monkeypatch.setattr("app.context.prompt.prelude.Template", _PinnedPrelude)
    monkeypatch.setattr("app.context.report.datetime", _PinnedDatetime)
    for variable in ("SANDBOX", "AGENTCTX_TOOL_CALL_STYLE", "AGENTCTX_SYSTEM_MD", "AGENTCTX_WRITE_SYSTEM_MD"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def pinned_sources(monkeypatch: pytest.MonkeyPatch, workspace: Path) -> None:
    """A block's subtitle names its source files by absolute path: show the workspace as PROJECT."""

    class PinnedTextScreen(TextScreen):
        def __init__(self, title: str, text: str, *, subtitle: str = "", highlight: str | None = None) -> None:
            super().__init__(title, text, subtitle=subtitle.replace(str(workspace), PROJECT), highlight=highlight)

    monkeypatch.setattr("app.tui.controllers.context.TextScreen", PinnedTextScreen)


def _script(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.tool_calls([("call_1", "read_file", {"path": "README.md"})], text="Let me look at the README.", usage=(2400, 20)),
        Reply.text(*split_words(ANSWER), usage=(2500, 48)),
    )


async def _one_turn(pilot: Pilot) -> None:  # type: ignore[type-arg]
    await ready(pilot)
    await send(pilot, "What does this project do?")


async def _quiet(pilot: Pilot) -> None:  # type: ignore[type-arg]
    pilot.app.clear_notifications()
    pilot.app.prompt.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


def test_main_screen_with_the_context_map(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    write_instructions(workspace)
    _script(fake_llm)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm))

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await _one_turn(pilot)
        assert pilot.app.query_one("#side").display, "160 columns: the map opens by itself"
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_context_map_block_opened(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, pinned_sources: None) -> None:  # type: ignore[no-untyped-def]
    write_instructions(workspace)
    _script(fake_llm)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm))

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await _one_turn(pilot)
        index = [block.name for block in app.context_map.blocks].index("QWEN.md")
        await pilot.press("f2", *["down"] * index, "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="QWEN.md block opened")
        assert text_screen(app).title_text == "QWEN.md"
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_context_list_report(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    write_instructions(workspace)
    _script(fake_llm)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm))

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await _one_turn(pilot)
        await run_command(pilot, "/context list")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/context list")
        assert text_screen(app).title_text == "Context"
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)
