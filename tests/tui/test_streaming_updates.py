"""A streamed reply reaches the Markdown widget in batches; text that arrives just before a pause still shows."""

from __future__ import annotations

from pathlib import Path

from app.tui.widgets.message_views import AssistantView
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
