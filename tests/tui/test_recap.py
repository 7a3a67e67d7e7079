"""/recap, and the recap a resumed session gets after more than 5 minutes away."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.config import Settings
from app.core.session.recap import (
    NOT_ENOUGH_CONTEXT,
    RECAP_BUSY,
    RECAP_FINAL_PROMPT,
    RECAP_SYSTEM_PROMPT,
)
from app.paths import Paths
from app.tui.widgets.message_views import NoticeView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    exchange,
    make_app,
    make_settings,
    notifications,
    ready,
    record_session,
    rendered_text,
    run_command,
    send,
    tool_exchange,
    views_of,
    wait_turn_done,
    wait_until,
)

SESSION = "66666666-6666-4666-8666-666666666666"
RECAP = "You were fixing the parser; the tests pass now and the docs are next."


def _stamp(minutes_ago: float) -> str:
    moment = datetime.now(timezone.utc) - timedelta(minutes=minutes_ago)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _record(paths: Paths, *, minutes_ago: float) -> None:
    record_session(
        paths,
        exchange("fix the parser", "I'll look.")
        + tool_exchange("c1", "read_file", {"path": "parser.py"}, "def parse(): ...")
        + exchange("run the tests", "All green."),
        session_id=SESSION,
        timestamp=_stamp(minutes_ago),
    )


def _settings(server: FakeOpenAIServer, *, on_resume: bool) -> Settings:
    settings = make_settings(server)
    settings.sessions.recap_on_resume = on_resume
    return settings


def _recaps(app: Any) -> list[str]:
    return [rendered_text(v) for v in views_of(app, NoticeView) if v.has_class("recap")]


def _recap_requests(server: FakeOpenAIServer) -> list[Any]:
    return [r for r in server.requests if r.messages and r.messages[0].get("content") == RECAP_SYSTEM_PROMPT]


async def _recap_shown(pilot: Pilot[Any]) -> None:
    await wait_until(pilot, lambda: _recaps(pilot.app), what="recap shown")


async def test_recap_command_asks_once_and_shows_the_recap(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=1)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=False), resume=SESSION)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        fake_llm.push(Reply.text(f"<recap>{RECAP}</recap>"))
        await run_command(pilot, "/recap")
        await _recap_shown(pilot)
        assert _recaps(app) == [f"Where you left off: {RECAP}"]
        [request] = _recap_requests(fake_llm)
        body = request.body
        assert body["max_tokens"] == 300 and body["temperature"] == 0.3 and "tools" not in body
        contents = [m["content"] for m in request.messages[1:]]
        assert contents == ["fix the parser", "I'll look.", "run the tests", "All green.", RECAP_FINAL_PROMPT]
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle again")


async def test_recap_without_enough_conversation_says_so(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/recap")
        assert notifications(app) == [NOT_ENOUGH_CONTEXT]
        assert fake_llm.requests == []


async def test_recap_while_a_turn_runs_is_refused(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=1)
    fake_llm.push(Reply.stall(2.0, ["working on it"]))  # long enough for /recap to land mid-turn on a loaded machine
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=False), resume=SESSION)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "next step", wait=False)
        await wait_until(pilot, lambda: app.status.state == "answering…", what="streaming")
        await run_command(pilot, "/recap")
        assert RECAP_BUSY in notifications(app, "warning")
        await wait_turn_done(pilot)
        assert _recap_requests(fake_llm) == []


async def test_a_failed_recap_is_reported(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=1)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=False), resume=SESSION)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        fake_llm.push(Reply.error(500, {"error": {"message": "overloaded"}}))
        await run_command(pilot, "/recap")
        await wait_until(pilot, lambda: notifications(app, "error"), what="error")
        assert notifications(app, "error")[0].startswith("Could not make a recap:")
        assert _recaps(app) == []


async def test_resuming_after_more_than_5_minutes_shows_a_recap(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=6)
    fake_llm.push(Reply.text(f"好的。<recap>{RECAP}"))  # an unclosed tag still gives the text
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=True), resume=SESSION[:8])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _recap_shown(pilot)
        assert _recaps(app) == [f"Where you left off: {RECAP}"]
        assert len(_recap_requests(fake_llm)) == 1
        assert not notifications(app)


async def test_continue_after_a_break_also_recaps(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=60 * 24)
    fake_llm.push(Reply.text(f"<recap>{RECAP}</recap>"))
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=True), continue_latest=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _recap_shown(pilot)


async def test_resuming_a_recent_session_shows_no_recap(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=4)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=True), resume=SESSION)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _recaps(app) == [] and fake_llm.requests == []


async def test_opening_an_old_session_from_the_picker_recaps_it(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=30)
    fake_llm.push(Reply.text(f"<recap>{RECAP}</recap>"))
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=True))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert fake_llm.requests == []
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.screen.__class__.__name__ == "SessionPickerScreen", what="picker")
        await pilot.press("enter")
        await _recap_shown(pilot)
        assert app.runtime is not None and app.runtime.session_id == SESSION


async def test_an_automatic_recap_that_fails_stays_quiet(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _record(paths, minutes_ago=10)
    fake_llm.push(Reply.error(500, {"error": {"message": "overloaded"}}))
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, on_resume=True), resume=SESSION)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: len(fake_llm.requests) == 1 and not app.sessions.recap_running, what="recap tried")
        await app.workers.wait_for_complete()
        assert _recaps(app) == [] and not notifications(app, "error")
