"""SVG snapshots of the session picker (titles, sizes, branches, a search) and of a recap notice.

Plain ``def`` tests: snap_compare runs its own event loop. Pinned: the session ids,
every record's timestamp and the file mtimes (shown in UTC), the cwd written into
each record (it decides the file sizes shown), the branches, and the cursor blink.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from app.core.history import Message
from app.paths import Paths
from app.tui.screens.sessions import SessionPickerScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    exchange,
    make_app,
    make_settings,
    ready,
    record_session,
    wait_until,
)

TERMINAL = (120, 36)
SESSION_ID = "5e55104d-0000-4000-8000-000000000000"
T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC
OLD_STAMP = "2023-11-14T22:13:20.000Z"
PINNED_CWD = Path("/home/dev/project")


@pytest.fixture(autouse=True)
def pinned_session_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: SESSION_ID)


def _sessions(paths: Paths) -> None:
    def record(session_id: str, messages: list[Message], hours: int, **extra) -> None:  # type: ignore[no-untyped-def]
        record_session(paths, messages, session_id=session_id, mtime=T0 + hours * 3600, timestamp=OLD_STAMP, cwd=PINNED_CWD, **extra)

    record("11111111-1111-4111-8111-111111111111", exchange("fix the failing parser test", "Fixed."), 0, git_branch="main")
    record(
        "22222222-2222-4222-8222-222222222222",
        exchange("write a README section about the keymap setting and its defaults", "Done.") + exchange("and the theme?", "Added."),
        1,
        git_branch="docs/keymap",
        title=("Document the keymap setting", "auto"),
    )
    record(
        "33333333-3333-4333-8333-333333333333",
        exchange("why is startup slow?", "Imports: " + "the openai SDK is imported at start-up. " * 120),
        24,
        git_branch="perf/startup-imports-lazy",
        title=("Startup: 解析慢的导入", "manual"),
    )
    record("44444444-4444-4444-8444-444444444444", exchange("[b]not markup[/b] in a prompt", "Shown as typed."), 30)


async def _quiet(pilot: Pilot) -> None:  # type: ignore[type-arg]
    pilot.app.clear_notifications()
    pilot.app.prompt.cursor_blink = False  # type: ignore[attr-defined]
    if isinstance(pilot.app.screen, SessionPickerScreen):
        pilot.app.screen.search_box.cursor_blink = False
    await pilot.pause()


def test_picker_with_titles_sizes_and_branches(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:  # type: ignore[no-untyped-def]
    _sessions(paths)
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionPickerScreen), what="session picker")
        await pilot.press("down")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_picker_searching_what_was_said(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:  # type: ignore[no-untyped-def]
    _sessions(paths)
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionPickerScreen), what="session picker")
        screen = pilot.app.screen
        assert isinstance(screen, SessionPickerScreen)
        await pilot.press("slash")
        screen.search_box.insert_text_at_cursor("openai sdk")
        await wait_until(pilot, lambda: not screen.searching and screen.query_text == "openai sdk" and screen._timer is None, what="search done")
        await pilot.app.workers.wait_for_complete()
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)


def test_recap_notice_after_a_break(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:  # type: ignore[no-untyped-def]
    record_session(
        paths,
        exchange("add a --dry-run flag to the deploy script", "Added `--dry-run`; it prints the plan and exits.")
        + exchange("now make the tests cover it", "Two tests cover it; one still fails on Windows paths."),
        session_id="77777777-7777-4777-8777-777777777777",
        timestamp=OLD_STAMP,
        mtime=T0,
        cwd=PINNED_CWD,
    )
    fake_llm.push(
        Reply.text(
            "<recap>You added a --dry-run flag to the deploy script and wrote two tests for it; "
            "one still fails on Windows paths, which is the next thing to fix.</recap>"
        )
    )
    settings = make_settings(fake_llm)
    settings.sessions.recap_on_resume = True
    app = make_app(fake_llm, workspace, settings=settings, resume="77777777")

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await wait_until(pilot, lambda: any(v.has_class("recap") for v in pilot.app.query(".notice")), what="recap shown")
        await pilot.app.workers.wait_for_complete()
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)
