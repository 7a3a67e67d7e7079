"""Keys are applied in the order typed, even when they arrive faster than the app draws (textual#6605).

The keys are posted all at once, with no pause between them, as a fast typist or a
loaded machine delivers them; the prompt must end with what the keys say.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import SIZE, make_app, ready


def _burst(app, keys: list[str]) -> None:  # type: ignore[no-untyped-def]
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ([*"abc", "backspace", "backspace", "backspace", "backspace", *"def"], "def"),
        ([*"abc", "left", "left", "X"], "aXbc"),
        ([*"one two", "ctrl+w", *"three"], "one three"),
        ([*"abc", "home", ">", "end", "<"], ">abc<"),
        ([*"xyz", "left", "delete", *"!"], "xy!"),
    ],
)
async def test_a_burst_of_keys_is_applied_in_order(fake_llm: FakeOpenAIServer, workspace: Path, keys: list[str], expected: str) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        _burst(app, keys)
        await pilot.pause()
        await pilot.pause()
        assert app.prompt.text == expected
