"""The gauge says what recall put into the turn's request and which path chose it."""

from __future__ import annotations

from pathlib import Path

import json

from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply
from tests.tui.helpers import SIZE, make_app, make_settings, ready, send
from tests.tui.memory_support import seed

SELECTOR = "You choose which saved memories"  # how the selector's system prompt begins


async def test_the_gauge_names_the_recalled_memory_and_its_path(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        fake_llm.push(Reply.text("Use a real database."), Reply.text("It is sunny."))
        await send(pilot, "do we mock the database in integration tests?")
        assert "Relevant memory" in fake_llm.requests[0].conversation[-1]["content"]  # the request carried it
        label = str(app.gauge.render())
        assert "1 memory by BM25F" in label
        assert "no mocks in db tests (feedback/no-mocks.md)" in str(app.gauge.tooltip)
        await send(pilot, "what is the weather like on the moon?")  # nothing relevant: the note goes
        assert "Relevant memory" not in fake_llm.requests[1].conversation[-1]["content"]
        assert "by BM25F" not in str(app.gauge.render())


async def test_the_gauge_says_when_the_selector_chose(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    settings = make_settings(fake_llm)
    settings.memory.recall_model = True

    def respond(request: RecordedRequest) -> Reply:
        system = request.messages[0]["content"] if request.messages else ""
        if isinstance(system, str) and system.startswith(SELECTOR):
            # A pick the keyword ranking would not make ("indent" is in no memory).
            ids = [line.split()[1] for line in request.messages[-1]["content"].splitlines() if "tabs" in line]
            return Reply.text(json.dumps({"selected_memories": ids}))
        return Reply.text("Tabs.")

    fake_llm.responder = respond
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "how should I indent my code?")
        labels = [(str(app.gauge.render()), str(app.gauge.tooltip))]
        if "by selector" not in labels[0][0]:
            # The selector settled after the first request: its pick is carried into the next turn.
            await send(pilot, "and in the tests?")
            labels.append((str(app.gauge.render()), str(app.gauge.tooltip)))
        label, tooltip = labels[-1]
        assert "memory by selector" in label or "memories by BM25F + selector" in label, labels
        assert "prefers tabs (user/tabs.md)" in tooltip
