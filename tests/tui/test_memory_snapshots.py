"""SVG snapshots of the memory panel and of the /forget confirmation (plain ``def`` tests).

Pinned: the session id, the panel's clock (ages), and the paths on screen: memory lives
under the workspace (QWEN_CODE_MEMORY_LOCAL) and HOME is the test's directory, so the
confirmation shows ``~/ws/...`` rather than a per-run temporary path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from app.tui.screens.confirm import ConfirmScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import make_app, ready, run_command, wait_until
from tests.tui.memory_support import T0, open_panel, seed
from tests.unit.memory_support import memory_text, put

TERMINAL = (110, 34)
SESSION_ID = "5e55104d-0000-4000-8000-000000000000"


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: SESSION_ID)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "agentctx"))
    monkeypatch.setenv("QWEN_CODE_MEMORY_LOCAL", "1")


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    return workspace


async def _quiet(pilot: Pilot) -> None:  # type: ignore[type-arg]
    pilot.app.clear_notifications()
    pilot.app.prompt.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


def test_memory_panel(snap_compare, fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    workspace = _workspace(tmp_path)
    seed(workspace)
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await open_panel(pilot)
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_forget_confirmation(snap_compare, fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    workspace = _workspace(tmp_path)
    mem = seed(workspace)
    put(mem.project_root, "project/editor.md", memory_text("editor setup", "how the editor is set up", "project", "- tabs in Makefiles\n- spaces in Python\n- wrap at 100"), T0)
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        app.runtime.memory.provider = None  # matching the text, the same every run
        await run_command(pilot, "/forget tabs")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)
