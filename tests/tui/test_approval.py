"""The approval modal: y writes, n and esc reject, a approves for the rest of the session."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from app.tui.screens.approval import ApprovalScreen
from app.tui.widgets.message_views import ToolView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, ready, rendered_text, send, views_of, wait_turn_done, wait_until


def _write(call_id: str, path: str, content: str) -> Reply:
    return Reply.tool_calls([(call_id, "write_file", {"path": path, "content": content})])


async def _until_asked(pilot) -> ApprovalScreen:  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen), what="approval modal shown")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ApprovalScreen)
    return screen


def _modal_text(screen: ApprovalScreen) -> str:
    return "\n".join(rendered_text(w) for w in screen.query(Static) if not w.children)


async def test_y_approves_and_the_file_is_written_with_its_diff_shown(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    (workspace / "notes.md").write_text("old line\nkept\n", encoding="utf-8")
    fake_llm.push(_write("call_1", "notes.md", "new line\nkept\n"), Reply.text("Updated the notes."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "update the notes", wait=False)
        screen = await _until_asked(pilot)

        text = _modal_text(screen)
        assert "The agent wants to change files: write_file" in text
        assert "--- a/notes.md" in text and "+++ b/notes.md" in text
        assert "-old line" in text and "+new line" in text
        assert app.status.state == "waiting for approval"
        [tool] = views_of(app, ToolView)
        assert rendered_text(tool).startswith("▶ ? write_file notes.md")
        assert (workspace / "notes.md").read_text(encoding="utf-8") == "old line\nkept\n", "nothing written before the answer"

        await pilot.press("y")
        await wait_turn_done(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        assert (workspace / "notes.md").read_text(encoding="utf-8") == "new line\nkept\n"
        assert rendered_text(tool).startswith("▶ ✓ write_file notes.md")
        assert fake_llm.requests[-1].messages[-1]["role"] == "tool"


async def test_n_rejects_and_leaves_the_file_absent(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(_write("call_1", "new.txt", "hello\n"), Reply.text("Understood, nothing written."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "create new.txt", wait=False)
        screen = await _until_asked(pilot)
        assert "new file, 1 line\nhello" in _modal_text(screen)

        await pilot.press("n")
        await wait_turn_done(pilot)
        assert not (workspace / "new.txt").exists()
        [tool] = views_of(app, ToolView)
        row = rendered_text(tool)
        assert row.startswith("▶ ⊘ write_file new.txt") and "rejected" in row
        assert tool.has_class("failed")
        assert "rejected" in fake_llm.requests[-1].messages[-1]["content"]


async def test_escape_rejects(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(_write("call_1", "new.txt", "hello\n"), Reply.text("Not written."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "create new.txt", wait=False)
        await _until_asked(pilot)
        await pilot.press("escape")
        await wait_turn_done(pilot)
        assert not (workspace / "new.txt").exists()
        assert "rejected" in rendered_text(views_of(app, ToolView)[0])
        assert app.status.state == "idle", "esc answered the modal; it did not cancel the turn"


async def test_a_approves_and_is_not_asked_again_in_this_session(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(_write("call_1", "one.txt", "1\n"), Reply.text("Wrote one."))
    app = make_app(fake_llm, workspace)
    asked: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "write one", wait=False)
        await _until_asked(pilot)
        await pilot.press("a")
        await wait_turn_done(pilot)
        assert (workspace / "one.txt").read_text(encoding="utf-8") == "1\n"

        original = app.approvals.ask

        def spy(event, entry):  # type: ignore[no-untyped-def]
            asked.append(event.call.id)
            original(event, entry)

        app.approvals.ask = spy  # type: ignore[method-assign]
        fake_llm.push(_write("call_2", "two.txt", "2\n"), Reply.text("Wrote two."))
        await send(pilot, "write two")
        assert asked == [], "the second write was not asked about"
        assert not isinstance(app.screen, ApprovalScreen)
        assert (workspace / "two.txt").read_text(encoding="utf-8") == "2\n"
        assert rendered_text(views_of(app, ToolView)[-1]).startswith("▶ ✓ write_file two.txt")
