"""A streamed reply reaches the Markdown widget in batches; text that arrives just before a pause still shows."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownFence

from app.tui.widgets.message_views import AssistantView, needs_whole_render
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    make_app,
    markdown_source,
    ready,
    send,
    views_of,
    wait_turn_done,
    wait_until,
)


async def test_text_streamed_just_before_a_pause_still_reaches_the_screen(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["one ", "two ", "three"]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "count to three", wait=False)
        await wait_until(pilot, lambda: app.conversation.transcript.last_answer() == "one two three", what="all three chunks received")
        [answer] = views_of(app, AssistantView)
        # The later chunks came within one update interval of the first: a timer shows them.
        await wait_until(pilot, lambda: markdown_source(answer) == "one two three", what="the held-back text shown during the pause")
        assert app.status.state != "idle", "still streaming: the end of the turn did not show it"

        await pilot.press("escape")
        await wait_turn_done(pilot)
        assert markdown_source(answer) == "one two three"


async def test_a_long_reply_streamed_in_small_chunks_ends_complete(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    words = [f"w{n} " if n % 25 else f"w{n}\n\n" for n in range(600)]
    fake_llm.push(Reply.text(*words, "```py\nx = 1\n", "```\n", "last."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "a long one")
        [answer] = views_of(app, AssistantView)
        assert markdown_source(answer) == "".join(words) + "```py\nx = 1\n```\nlast."
        assert not answer.entry.streaming


async def test_a_streamed_reply_without_tables_is_not_rendered_again_when_it_ends(fake_llm: FakeOpenAIServer, workspace: Path, monkeypatch) -> None:
    # Rendering a long reply again froze the screen for over a second; a plain reply is left as streamed.
    chunks = ["# Plan\n\n", "one ", "two\n\n", "```py\nx = 1\n", "```\n\n- a\n", "- b\n"]
    fake_llm.push(Reply.text(*chunks, delay=0.15))
    rendered: list[str] = []
    update = Markdown.update
    monkeypatch.setattr(Markdown, "update", lambda self, text: rendered.append(text) or update(self, text))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "plan")
        [answer] = views_of(app, AssistantView)
        assert markdown_source(answer) == "".join(chunks)
        assert "".join(chunks) not in rendered
        fence = answer.query_one(MarkdownFence)
        fence.refresh(recompose=True)  # Textual #6518: a streamed fence once lost its code here
        await pilot.pause()
        assert "x = 1" in str(fence.query_one("#code-content").render())


async def test_a_streamed_table_is_rendered_whole_when_the_reply_ends(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    # Rows streamed into a table become plain cells; the whole render makes them table cells again.
    fake_llm.push(Reply.text("| file | lines |\n|---|---|\n", "| a.py | 1 |\n", "| b.py | 2 |\n", delay=0.15))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "table")
        [answer] = views_of(app, AssistantView)
        cells = answer.query(".cell")
        assert [str(cell.render()) for cell in cells] == ["a.py", "1", "b.py", "2"]
        assert {type(cell).__name__ for cell in cells} == {"MarkdownTableCellContents"}


def test_only_tables_reference_links_and_carriage_returns_need_a_whole_render() -> None:
    assert needs_whole_render("| a | b |\n|---|---|\n| 1 | 2 |")
    assert needs_whole_render("a | b\n:-- | --:\n1 | 2")
    assert needs_whole_render("|-|\n")
    assert needs_whole_render("see [docs].\n\n[docs]: https://example.com")
    assert needs_whole_render("line\r\nline")
    assert not needs_whole_render("# Title\n\ntext --- text\n\n---\n\n- a | b\n\n```\ncode\n```")
    assert not needs_whole_render("a [link](https://example.com) and [x] alone")
