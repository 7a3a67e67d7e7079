"""The prompt cache the endpoint reports: marked on the map, recorded, and the hit rate in /context (also after resume)."""

from __future__ import annotations

from pathlib import Path

from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import make_app, map_lines, ready, record_lines, run_command, send, shown_text, wait_until

WIDE = (160, 40)


async def _context_text(pilot) -> str:  # type: ignore[no-untyped-def]
    await run_command(pilot, "/context")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, TextScreen), what="/context")
    text = shown_text(pilot.app.screen)
    await pilot.press("escape")
    return text


async def test_the_cached_prefix_is_marked_and_context_shows_the_hit_rate(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("First.", usage=(4000, 10)))
    # The second request: the server served 3,000 of its 5,000 prompt tokens from its cache.
    fake_llm.push(Reply.text("Second.", usage=(5000, 10), cached=3000))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        assert not any("cached" in line for line in map_lines(app))
        await send(pilot, "two")

        assert [r["usageMetadata"]["cached_tokens"] for r in record_lines(app) if r["type"] == "assistant"] == [0, 3000]
        lines = map_lines(app)
        assert lines[0] == "5k / 32k (16%, reported, 3k cached)"
        context_map = app.context_map
        marks = {block.name: context_map.cache_mark(block) for block in context_map.blocks}
        assert marks["base prompt"] == " · cached", "the system prompt starts the request: inside the prefix"
        assert marks["assistant replies (1)"] == "", "the newest messages end the request: outside it"
        assert any(line.startswith("▶ base prompt · ") and line.endswith(" · cached") for line in lines)

        text = await _context_text(pilot)
        assert "  last request: 3,000 of 5,000 prompt tokens (60%) served from the cache" in text
        assert "  this session: 3,000 of 9,000 prompt tokens (33%) served from the cache" in text
        session_id = app.runtime.session_id  # type: ignore[union-attr]

    fake_llm.push(Reply.text("Third.", usage=(6000, 10), cached=5000))
    resumed = make_app(fake_llm, workspace, resume=session_id)
    async with resumed.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "three")
        text = await _context_text(pilot)
        assert "  this session: 8,000 of 15,000 prompt tokens (53%) served from the cache" in text, "the resumed part counts too"
