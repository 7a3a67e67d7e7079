"""While an answer streams the conversation follows it, until you scroll up; ctrl+end follows again."""

from __future__ import annotations

from pathlib import Path

from app.core.history import Message
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, ready, record_session, send, wait_turn_done, wait_until


def _long_session(workspace: Path) -> str:
    messages: list[Message] = []
    for i in range(12):
        messages += [Message.user(f"question {i}"), Message(role="assistant", content=f"answer {i}\n\n" + "line\n\n" * 10)]
    return record_session(Paths.for_cwd(workspace), messages).stem


def _at_bottom(app) -> bool:  # type: ignore[no-untyped-def]
    conversation = app.conversation
    return conversation.scroll_y >= conversation.max_scroll_y - 1


async def test_scrolling_up_stops_following_and_ctrl_end_follows_again(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    chunks = [f"part {n}\n\n" for n in range(40)]
    fake_llm.push(Reply.text(*chunks, delay=0.05), Reply.text(*chunks, delay=0.02))
    app = make_app(fake_llm, workspace, resume=_long_session(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "stream a long one", wait=False)
        await wait_until(pilot, lambda: "part 5" in app.conversation.transcript.last_answer(), what="streaming")
        assert _at_bottom(app), "following the answer"
        await pilot.press("pageup")
        held = app.conversation.scroll_y
        await wait_turn_done(pilot)
        assert app.conversation.scroll_y == held and not _at_bottom(app), "the view stayed where you scrolled"
        await pilot.press("ctrl+end")
        await send(pilot, "again", wait=False)
        await wait_turn_done(pilot)
        await pilot.pause()
        assert _at_bottom(app), "following again"
