"""A long streamed reply keeps only its last screens in the layout; the person sees no difference."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from app.tui import gc_hold
from app.tui.widgets.message_views import AssistantView
from app.tui.widgets.offscreen import HiddenBlocksSpacer, OffscreenBlocks
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, markdown_source, ready, send, views_of, wait_turn_done, wait_until

# Headings, paragraphs, lists and code: blocks with different margins, so the spacer's sum is tested.
PIECES = [
    "## Part {n}\n\n",
    "Some words about part {n}, long enough to wrap once on a narrow screen, and then some more words.\n\n",
    "- first item of {n}\n- second item\n\n",
    "```py\nx = {n}\n```\n\n",
]
LONG_REPLY = "".join(piece.format(n=n) for n in range(30) for piece in PIECES)


class _Reply(App[None]):
    def __init__(self, layout: str = "stream") -> None:
        super().__init__()
        self.layout = layout  # the app's replies use "stream" (styles/app.tcss)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroller"):
            markdown = Markdown(LONG_REPLY)
            markdown.set_styles(f"layout: {self.layout};")
            yield markdown


@pytest.mark.parametrize("layout", ["stream", "vertical"])
async def test_hiding_the_blocks_far_above_changes_nothing_on_screen_nor_the_scroll_height(layout: str) -> None:
    app = _Reply(layout)
    async with app.run_test(size=(70, 20)) as pilot:
        scroller = app.query_one("#scroller", VerticalScroll)
        markdown = app.query_one(Markdown)
        scroller.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        before = (app.export_screenshot(), scroller.virtual_size.height, scroller.scroll_y)

        offscreen = OffscreenBlocks(markdown)
        hidden = offscreen.hide_far_above(scroller.outer_size.height)
        await pilot.pause()
        blocks = [c for c in markdown.children if isinstance(c, MarkdownBlock)]
        assert hidden > 20 and sum(not b.display for b in blocks) == hidden
        assert markdown.query_one(HiddenBlocksSpacer).display
        assert (app.export_screenshot(), scroller.virtual_size.height, scroller.scroll_y) == before

        offscreen.show_all()
        await pilot.pause()
        assert all(b.display for b in blocks) and not markdown.query(HiddenBlocksSpacer)
        assert (app.export_screenshot(), scroller.virtual_size.height, scroller.scroll_y) == before


async def test_hiding_again_adds_to_the_spacer_and_a_short_reply_hides_nothing() -> None:
    app = _Reply()
    async with app.run_test(size=(70, 20)) as pilot:
        scroller = app.query_one("#scroller", VerticalScroll)
        markdown = app.query_one(Markdown)
        scroller.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        height = scroller.virtual_size.height
        offscreen = OffscreenBlocks(markdown)
        first = offscreen.hide_far_above(60)  # as if the screen were three times as tall
        await pilot.pause()
        second = offscreen.hide_far_above(20)
        await pilot.pause()
        assert first > 0 and second > 0
        assert scroller.virtual_size.height == height
        assert len(markdown.query(HiddenBlocksSpacer)) == 1
        assert offscreen.hide_far_above(10_000) == 0


async def test_a_long_streamed_reply_hides_what_scrolled_away_and_shows_it_all_when_scrolled_up_or_done(
    fake_llm: FakeOpenAIServer, workspace: Path
) -> None:
    chunks = [piece.format(n=n) for n in range(30) for piece in PIECES]
    fake_llm.push(Reply.stall(30, after=chunks, delay=0.01))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "a long one", wait=False)
        [answer] = await _answer(pilot, app)
        await wait_until(pilot, lambda: markdown_source(answer) == LONG_REPLY, what="the whole reply shown")
        markdown = answer.query_one(Markdown)
        async with markdown.lock:  # the last append done (the source is set before it is parsed)
            pass
        await pilot.pause()
        await pilot.pause()
        blocks = [c for c in markdown.children if isinstance(c, MarkdownBlock)]
        assert any(not b.display for b in blocks), "blocks two screens above the end left the layout"
        assert gc_hold.holding(), "full collections wait while the reply streams"
        conversation = app.conversation
        height = await _settled_height(pilot, conversation)
        spacer = markdown.query_one(HiddenBlocksSpacer)
        await pilot.press("pageup")
        await wait_until(pilot, lambda: all(b.display for b in blocks), what="every block back after scrolling up")
        await pilot.pause()
        assert spacer.parent is None
        assert await _settled_height(pilot, conversation) == height, "the spacer was as tall as what it stood for"

        await pilot.press("escape")
        await wait_turn_done(pilot)
        assert all(c.display for c in markdown.children if isinstance(c, MarkdownBlock))
        assert not gc_hold.holding()


async def test_a_finished_reply_keeps_them_hidden_until_scrolled_up_or_resized(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    chunks = [piece.format(n=n) for n in range(30) for piece in PIECES]
    fake_llm.push(Reply.text(*chunks, delay=0.01))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "a long one")
        [answer] = views_of(app, AssistantView)
        markdown = answer.query_one(Markdown)
        assert markdown.source == LONG_REPLY and not gc_hold.holding()
        blocks = [c for c in markdown.children if isinstance(c, MarkdownBlock)]
        assert any(not b.display for b in blocks) and markdown.query(HiddenBlocksSpacer)

        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await wait_until(pilot, lambda: all(b.display for b in blocks), what="every block back at another width")
        assert not markdown.query(HiddenBlocksSpacer)


def test_gc_holds_nest_and_the_last_release_puts_the_thresholds_back() -> None:
    saved = gc.get_threshold()
    gc_hold.hold()
    gc_hold.hold()
    assert gc.get_threshold()[:2] == saved[:2] and gc.get_threshold()[2] > 10_000
    gc_hold.release()
    assert gc_hold.holding() and gc.get_threshold()[2] > 10_000
    gc_hold.release()
    assert not gc_hold.holding() and gc.get_threshold() == saved
    gc_hold.release()  # one too many is harmless
    assert gc.get_threshold() == saved


async def _answer(pilot, app):  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: views_of(app, AssistantView), what="the reply's view")
    return views_of(app, AssistantView)


async def _settled_height(pilot, widget) -> int:  # type: ignore[no-untyped-def]
    """The widget's scrollable height once three pauses in a row leave it unchanged."""
    seen: list[int] = []
    while len(seen) < 3 or len(set(seen[-3:])) > 1:
        await pilot.pause(0.02)
        seen.append(widget.virtual_size.height)
        assert len(seen) < 200, seen
    return seen[-1]
