"""SVG snapshots of every screen (plain ``def`` tests: snap_compare runs its own event loop).

Pinned so they are the same on every machine and run: the session id (``new_session_id``),
token counts (scripted usage), session times (file mtimes, shown in UTC), the settings
paths on the first-run screen (the real ones live under a per-run tmp dir), and the
cursor blink. The fake server's port is never on screen (the status line shows the model).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from app.config import Settings
from app.paths import Paths
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.first_run import FirstRunScreen
from app.tui.screens.help import HelpScreen
from app.tui.screens.sessions import SessionPickerScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply, split_words
from tests.tui.helpers import exchange, make_app, ready, record_session, send, wait_until

TERMINAL = (120, 36)
SESSION_ID = "5e55104d-0000-4000-8000-000000000000"
T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC

ANSWER = """The project is a **tiny demo** workspace for the TUI tests.

- `README.md` describes it in one line
- `missing.py` does not exist, so there is no code yet

A first module could start like this:

```python
def greet(name: str) -> str:
    return f"Hello, {name}!"
```
"""


@pytest.fixture(autouse=True)
def pinned_session_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: SESSION_ID)


async def _quiet(pilot: Pilot) -> None:  # type: ignore[type-arg]
    """No toasts and no moving parts in the picture."""
    pilot.app.clear_notifications()
    pilot.app.prompt.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


def test_main_screen_mid_conversation(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    fake_llm.push(
        Reply.tool_calls(
            [("call_1", "read_file", {"path": "README.md"}), ("call_2", "read_file", {"path": "missing.py"})],
            text="Let me look at the files.",
            usage=(1800, 40),
        ),
        Reply.text(*split_words(ANSWER), usage=(2300, 160)),
    )
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await send(pilot, "What does this project do?")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_approval_modal_with_a_diff(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    (workspace / "notes.md").write_text("# Notes\n\n- buy milk\n- call Sam\n", encoding="utf-8")
    fake_llm.push(
        Reply.tool_calls(
            [("call_1", "write_file", {"path": "notes.md", "content": "# Notes\n\n- buy oat milk\n- call Sam\n- book the train\n"})],
            text="I'll update the notes.",
            usage=(1500, 60),
        )
    )
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await send(pilot, "Change milk to oat milk and add the train.", wait=False)
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen), what="approval modal")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_first_run_screen(snap_compare, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # The screen names both settings files; the real ones are under this run's tmp dir.
    monkeypatch.setattr(Paths, "user_settings_file", property(lambda self: Path("/home/dev/.config/agentctx/settings.yaml")))
    monkeypatch.setattr(Paths, "project_settings_file", property(lambda self: Path("/home/dev/project/.qwen/settings.yaml")))
    app = make_app(None, workspace, settings=Settings())

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, FirstRunScreen), what="first-run screen")
        await ready(pilot)
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_help_screen(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), what="help screen")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_session_picker(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:  # type: ignore[no-untyped-def]
    # The rows show each file's size, which depends on the cwd written into every record: pinned.
    cwd = Path("/home/dev/project")
    record_session(paths, exchange("fix the failing parser test", "Fixed."), session_id="11111111-1111-4111-8111-111111111111", mtime=T0, cwd=cwd)
    record_session(
        paths,
        exchange("write a README section about the keymap setting and its defaults", "Done."),
        session_id="22222222-2222-4222-8222-222222222222",
        mtime=T0 + 3600,
        cwd=cwd,
    )
    record_session(paths, exchange("why is startup slow?", "Imports."), session_id="33333333-3333-4333-8333-333333333333", mtime=T0 + 86_400, cwd=cwd)
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionPickerScreen), what="session picker")
        await pilot.press("down")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)
