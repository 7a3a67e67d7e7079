"""/remember, /forget and /dream from the prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.context.memory import MemoryScope
from app.tui.screens.confirm import ConfirmScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    make_app,
    notifications,
    ready,
    run_command,
    wait_turn_done,
    wait_until,
)
from tests.tui.memory_support import TABS, seed
from tests.unit.memory_support import memory_text, put

# -- /remember ---------------------------------------------------------------------------------------


async def test_remember_runs_a_turn_that_saves_the_memory_without_asking(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        target = app.runtime.memory.mem.user_root / "feedback" / "tabs.md"
        text = memory_text("prefers tabs", "the user prefers tabs over spaces", "feedback", "Use tabs.")
        fake_llm.push(Reply.tool_calls([("c1", "write_file", {"path": str(target), "content": text})]), Reply.text("Saved to user/feedback/tabs.md."))
        await run_command(pilot, "/remember I prefer tabs over spaces")
        await wait_turn_done(pilot)
        asked = fake_llm.requests[0].conversation[-1]["content"]
        assert asked.startswith("Please remember this for later sessions: I prefer tabs over spaces\n")
        assert "auto-memory" in asked and "QWEN.md" in asked
        assert target.read_text(encoding="utf-8") == text, "memory roots are writable without approval"
        assert app.runtime.memory.extraction.state == "skipped", "no extraction of a turn that saved a memory itself"


async def test_remember_without_text_shows_the_usage(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/remember")
        assert notifications(app, "warning") == ["Usage: /remember <what to remember>"]
        assert not fake_llm.requests


# -- /forget ---------------------------------------------------------------------------------------------


async def _forget(pilot, text: str) -> ConfirmScreen:  # type: ignore[no-untyped-def]
    await run_command(pilot, text)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="confirmation")
    return pilot.app.screen


async def test_forget_confirms_the_files_then_deletes_them(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.runtime.memory.provider = None  # matching the text
        screen = await _forget(pilot, "/forget tabs over spaces")
        target = mem.user_root / "user" / "tabs.md"
        assert screen.question == "Forget what matches “tabs over spaces”? This changes 1 memory file:"
        assert screen.detail == f"{target} — the whole file\n\nChosen by matching the text; the memory indexes are rebuilt."
        await pilot.press("y")
        await wait_until(pilot, lambda: any("forgot" in n for n in notifications(app)), what="forgotten")
        assert notifications(app) == ["Managed auto-memory forgot 1 entry from: user/"]
        assert not target.exists() and (mem.project_root / "feedback" / "no-mocks.md").exists()
        assert "tabs" not in mem.index_file(MemoryScope.USER).read_text(encoding="utf-8")


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_forget_cancelled_deletes_nothing(key: str, fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.runtime.memory.provider = None
        await _forget(pilot, "/forget tabs over spaces")
        await pilot.press(key)
        await wait_until(pilot, lambda: notifications(app), what="answered")
        assert notifications(app) == ["Nothing was forgotten."]
        assert (mem.user_root / "user" / "tabs.md").read_text(encoding="utf-8") == TABS


async def test_forget_asks_the_model_and_takes_out_one_entry_of_several(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    notes = put(mem.project_root, "project/notes.md", memory_text("deploy notes", "how deploys go", "project", "- deploy on tuesdays\n- tag every release\n- never on fridays"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        fake_llm.push(Reply.text(json.dumps({"selectedCandidateIds": ["project/notes.md:2"], "reasoning": "the friday rule"})))
        screen = await _forget(pilot, "/forget the friday deploy rule")
        assert screen.detail.startswith(f"{notes} — 1 of its 3 entries (the file stays): “never on fridays”\n\nChosen by the model;")
        assert "Candidates:" in fake_llm.requests[0].conversation[-1]["content"]
        await pilot.press("y")
        await wait_until(pilot, lambda: any("forgot" in n for n in notifications(app)), what="forgotten")
        body = notes.read_text(encoding="utf-8")
        assert "tag every release" in body and "fridays" not in body


async def test_forget_without_a_match_or_text_says_so(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.runtime.memory.provider = None
        await run_command(pilot, "/forget zebra crossings")
        await wait_until(pilot, lambda: notifications(app), what="no match")
        await run_command(pilot, "/forget")
        assert notifications(app, "warning") == [
            "No managed auto-memory entries matched: zebra crossings",
            "Usage: /forget <memory text to remove>",
        ]
        assert not isinstance(app.screen, ConfirmScreen)


# -- /dream ------------------------------------------------------------------------------------------------


async def test_dream_consolidates_now(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        manager = app.runtime.memory
        fake_llm.push(Reply.text("Nothing to tidy."))
        await run_command(pilot, "/dream")
        assert notifications(app) == ["Consolidating the project memories in the background (F5 shows how it goes)."]
        await wait_until(pilot, lambda: manager.dream.state == "done", what="dreamt")
        assert "tidy" in fake_llm.requests[0].body["messages"][0]["content"]
        assert not manager.mem.lock_file.exists()


async def test_dream_without_a_model_says_why_not(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.runtime.memory.provider = None
        await run_command(pilot, "/dream")
        assert notifications(app, "warning") == ["Not consolidating: no model endpoint."]
        assert not fake_llm.requests
