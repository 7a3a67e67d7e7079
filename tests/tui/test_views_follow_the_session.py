"""The map, the gauge and the conversation follow the session: a new session clears them, a resumed one shows
its own context, a compaction redraws the map; the map's width follows the terminal and collapses when narrow."""

from __future__ import annotations

from pathlib import Path

from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import exchange, make_app, map_lines, ready, record_session, send, wait_until

SUMMARY = (
    "<analysis>a</analysis><state_snapshot><all_user_messages>q</all_user_messages><pending_tasks>none</pending_tasks>"
    "<current_work>w</current_work><next_step>n</next_step></state_snapshot>"
)
WIDE = (160, 40)


async def test_a_new_session_clears_the_map_of_the_old_one(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("An answer."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        assert app.context_map.blocks, "the map shows the request just sent"
        before = app.runtime.session_id if app.runtime else ""
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id != before, what="new session")
        await ready(pilot)
        assert app.context_map.blocks == []
        assert map_lines(app) == ["No request yet.", "Send a message to see what the model receives."]
        assert app.gauge.tokens == 0


async def test_resuming_shows_the_resumed_context_on_the_map(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    paths = Paths.for_cwd(workspace)
    old = record_session(paths, exchange("how is the parser tested?", "With property tests. " * 200))
    app = make_app(fake_llm, workspace, resume=old.stem)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: bool(app.context_map.blocks), what="map estimate")
        names = [block.name for block in app.context_map.blocks]
        assert "user messages (1)" in names and "assistant replies (1)" in names
        assert app.context_map.used > 0


async def test_a_compaction_redraws_the_map(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    paths = Paths.for_cwd(workspace)
    messages = []
    for i in range(4):
        messages += exchange(f"question {i}", f"answer {i} " + "detail " * 400)
    old = record_session(paths, messages)
    fake_llm.push(Reply.text(SUMMARY))
    app = make_app(fake_llm, workspace, resume=old.stem)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: "user messages (4)" in [b.name for b in app.context_map.blocks], what="resumed map")
        before = app.context_map.used
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.context_map.used and app.context_map.used < before, what="map redrawn after compaction", max_iters=4000)
        assert "user messages (4)" not in [b.name for b in app.context_map.blocks]


async def test_the_map_follows_the_terminal_width(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot)
        side = app.query_one("#side")
        assert not side.display, "collapsed below ui.map_collapse_width (100)"
        await pilot.press("f2")  # still there on a key
        assert side.display and app.focused is app.context_map
        assert app.conversation.region.width >= 80 - 28, "the conversation keeps most of a narrow terminal"
        await pilot.press("f2")  # closed by hand: widening does not force it back
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert not side.display
        await pilot.resize_terminal(90, 30)  # collapsing forgets the choice
        await pilot.pause()
        assert not side.display
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert side.display, "wide terminals show it by themselves"
        assert app.context_map.region.width == 52


async def test_the_collapse_width_is_a_setting(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    from tests.tui.helpers import make_settings

    settings = make_settings(fake_llm, map_collapse_width=60)
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        assert app.query_one("#side").display, "above the chosen collapse width the map stays where the person put it"
        await pilot.resize_terminal(50, 30)
        await pilot.pause()
        assert app.query_one("#side").display, "the map keeps focus, so it is not pulled away under the cursor"
        await pilot.press("escape")
        await pilot.resize_terminal(55, 30)
        await pilot.pause()
        assert not app.query_one("#side").display
