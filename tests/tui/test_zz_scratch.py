from pathlib import Path
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import make_app, ready, send, rendered_text, notifications, wait_until, wait_turn_done

async def test_scratch(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["partial answer with several words in it"]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "take your time", wait=False)
        await wait_until(pilot, lambda: "streaming" in rendered_text(app.context_map))
        print(rendered_text(app.context_map))
        await pilot.press("escape")
        await wait_turn_done(pilot)
        print(rendered_text(app.context_map))
