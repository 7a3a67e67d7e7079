"""The session picker: search by what was said, delete with confirmation, and names from /rename."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from app.paths import Paths
from app.tui.app import AgentctxApp
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.sessions import SessionPickerScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    exchange,
    make_app,
    notifications,
    ready,
    record_lines,
    record_session,
    rendered_text,
    run_command,
    send,
    wait_until,
)

LEXER = "11111111-1111-4111-8111-111111111111"
DOCS = "22222222-2222-4222-8222-222222222222"
OTHER = "33333333-3333-4333-8333-333333333333"
T0 = 1_700_000_000


def _sessions(paths: Paths) -> None:
    record_session(paths, exchange("fix the tokenizer", "The lexer drops tabs; fixed."), session_id=LEXER, mtime=T0, title=("Tokenizer fix", "auto"))
    record_session(paths, exchange("write the docs", "Docs written."), session_id=DOCS, mtime=T0 + 60)
    record_session(paths, exchange("why is CI red?", "A LEXER test is flaky."), session_id=OTHER, mtime=T0 + 120)


async def _picker(pilot: Pilot[Any]) -> SessionPickerScreen:
    await pilot.press("ctrl+r")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionPickerScreen), what="picker")
    screen = pilot.app.screen
    assert isinstance(screen, SessionPickerScreen)
    return screen


def _ids(screen: SessionPickerScreen) -> list[str | None]:
    options = screen.query_one(OptionList)
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


def _prompts(screen: SessionPickerScreen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def _search(pilot: Pilot[Any], screen: SessionPickerScreen, text: str) -> None:
    screen.search_box.value = text
    await wait_until(pilot, lambda: screen.query_text == " ".join(text.split()) and screen._timer is None and not screen.searching, what="search done")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_search_finds_sessions_by_what_was_said_and_escape_clears_it(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _sessions(paths)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _picker(pilot)
        assert _ids(screen) == [OTHER, DOCS, LEXER]
        assert "Tokenizer fix" in _prompts(screen)[2], "the title, not the first prompt"

        await pilot.press("slash")
        assert screen.search_box.has_focus
        await _search(pilot, screen, "lexer")
        assert _ids(screen) == [OTHER, LEXER]
        assert "“A LEXER test is flaky.”" in _prompts(screen)[0]
        assert rendered_text(screen.query_one("#sessions-status")) == "2 sessions mention “lexer”"

        await _search(pilot, screen, "nothing like it")
        assert _ids(screen) == [None] and "No session mentions" in _prompts(screen)[0]

        await pilot.press("escape")  # clears the search
        await wait_until(pilot, lambda: _ids(screen) == [OTHER, DOCS, LEXER], what="all sessions again")
        assert app.screen is screen and screen.option_list.has_focus
        await pilot.press("escape")  # now closes
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionPickerScreen), what="closed")


async def test_enter_in_the_search_box_opens_the_first_hit(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _sessions(paths)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _picker(pilot)
        await pilot.press("slash")
        await _search(pilot, screen, "docs written")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id == DOCS, what="opened")


async def test_delete_asks_first_and_y_deletes_the_session_and_its_sidecar(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _sessions(paths)
    sidecar = paths.chats_dir / f"{DOCS}.context.json"
    sidecar.write_text("{}", encoding="utf-8")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _picker(pilot)
        await pilot.press("down", "d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert confirm.question == "Delete the session “write the docs”?"
        assert DOCS in confirm.detail and f"{DOCS}.jsonl, {DOCS}.context.json" in confirm.detail

        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen and _ids(screen) == [OTHER, LEXER], what="row removed")
        assert not (paths.chats_dir / f"{DOCS}.jsonl").exists() and not sidecar.exists()
        assert "Deleted the session “write the docs”." in notifications(app)
        assert screen.option_list.highlighted == 1


async def test_n_keeps_the_session(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _sessions(paths)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _picker(pilot)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, what="back in the picker")
        assert _ids(screen) == [OTHER, DOCS, LEXER]
        assert (paths.chats_dir / f"{OTHER}.jsonl").exists()


async def test_the_current_session_cannot_be_deleted(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    _sessions(paths)
    app = make_app(fake_llm, workspace, resume=OTHER)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _picker(pilot)
        assert _prompts(screen)[0].startswith("● ")
        await pilot.press("d")
        await pilot.pause()
        assert app.screen is screen
        assert notifications(app, "warning") == ["That is the session you are in; it cannot be deleted."]
        assert (paths.chats_dir / f"{OTHER}.jsonl").exists()


async def test_rename_names_the_session_and_the_picker_shows_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app: AgentctxApp = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/rename")
        assert notifications(app, "warning") == ["Usage: /rename <title>"]
        fake_llm.push(Reply.text("Hello."))
        await send(pilot, "first question")
        await run_command(pilot, "/rename   Parser   work ")
        assert "Session renamed to “Parser work”." in notifications(app)

        titles = [r["systemPayload"] for r in record_lines(app) if r.get("subtype") == "custom_title"]
        assert titles == [{"customTitle": "Parser work", "titleSource": "manual"}]
        commands = [r["systemPayload"] for r in record_lines(app) if r.get("subtype") == "slash_command"]
        assert {"phase": "invocation", "rawCommand": "/rename   Parser   work"} in commands

        screen = await _picker(pilot)
        assert "Parser work" in _prompts(screen)[0]


async def test_slash_commands_in_a_fresh_session_wait_for_its_first_message(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/tools")
        assert app.runtime is not None and not app.runtime.recorder.path.exists()
        fake_llm.push(Reply.text("Hi."))
        await send(pilot, "hello")
        records = record_lines(app)
        assert records[0]["subtype"] == "slash_command" and records[0]["systemPayload"] == {"phase": "invocation", "rawCommand": "/tools"}
        assert records[1]["type"] == "user"


async def test_quitting_mid_turn_drains_and_leaves_only_whole_lines(
    fake_llm: FakeOpenAIServer, workspace: Path, monkeypatch: Any
) -> None:
    from app.runtime import Runtime

    drains: list[float] = []
    real_aclose = Runtime.aclose

    async def spy(self: Runtime, *, drain_seconds: float = 0.0) -> None:
        drains.append(drain_seconds)
        await real_aclose(self, drain_seconds=drain_seconds)

    monkeypatch.setattr(Runtime, "aclose", spy)
    fake_llm.push(Reply.stall(5.0, ["partial answer "]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "a long question", wait=False)
        await wait_until(pilot, lambda: app.status.state == "answering…", what="streaming")
        path = app.runtime.recorder.path  # type: ignore[union-attr]
        app.exit()
    assert drains == [5.0]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["message"]["content"] == "a long question"
    assert rows[-1].get("subtype") == "turn_cancelled"
    assert path.read_bytes().endswith(b"\n")



async def test_a_new_query_replaces_a_running_search(fake_llm: FakeOpenAIServer, workspace: Path, paths: Paths) -> None:
    for n in range(120):
        record_session(paths, exchange(f"task {n}", f"alpha result {n}"), mtime=T0 + n)
    omega = record_session(paths, exchange("the last one", "omega result"), mtime=T0 - 1)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _picker(pilot)
        assert len(_ids(screen)) == 121
        screen.search_box.value = "alpha"
        screen._start_search()  # no pause: the search is running when the next query arrives
        await _search(pilot, screen, "omega")
        assert _ids(screen) == [omega.stem]
        assert rendered_text(screen.query_one("#sessions-status")) == "1 session mentions “omega”"
