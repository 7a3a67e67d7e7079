from tests.fakes.openai_server import Reply
from tests.tui.helpers import *

async def test_probe(fake_llm, workspace):
    fake_llm.push(Reply.text("Hello ", "**world**", usage=(100, 20)))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi there")
        for w in entry_views(app):
            print(type(w).__name__, repr(rendered_text(w))[:100])
        print([markdown_source(v) for v in views_of(app, AssistantView)])
        print(rendered_text(app.status), app.status.render())
        print(notifications(app))
