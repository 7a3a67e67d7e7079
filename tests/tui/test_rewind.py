"""Rewind from the keyboard: Esc Esc or /rewind, the picker, the message back in the prompt, the undo of file changes, resume."""

from __future__ import annotations

from pathlib import Path

from app.tui.app import AgentctxApp
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.rewind import RewindScreen
from app.tui.widgets.message_views import AssistantView, UserView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    make_app,
    make_settings,
    markdown_source,
    ready,
    record_lines,
    rendered_text,
    run_command,
    send,
    type_text,
    views_of,
    wait_turn_done,
    wait_until,
)


def _auto_edit(server: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    settings = make_settings(server)
    settings.approval_mode = "auto-edit"  # the edits run without asking; the subject here is undoing them
    return settings


async def _two_turns_with_edits(pilot, server: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    server.push(Reply.text("Hello."))
    await send(pilot, "first, say hello")
    server.push(
        Reply.tool_calls(
            [
                ("call_1", "write_file", {"path": "notes/todo.txt", "content": "- write tests\n"}),
                ("call_2", "edit", {"path": "README.md", "old_string": "A tiny workspace", "new_string": "A rewritten workspace"}),
            ]
        ),
        Reply.text("Wrote the notes and edited the README."),
    )
    await send(pilot, "write the notes and edit the README")
    assert (workspace / "notes" / "todo.txt").exists()
    assert "A rewritten workspace" in (workspace / "README.md").read_text()


async def _open_with_escape_twice(pilot) -> RewindScreen:  # type: ignore[no-untyped-def]
    await pilot.press("escape", "escape")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, RewindScreen), what="rewind picker")
    screen = pilot.app.screen
    assert isinstance(screen, RewindScreen)
    return screen


async def test_escape_twice_rewinds_undoes_the_edits_and_the_next_request_no_longer_holds_the_turn(
    fake_llm: FakeOpenAIServer, workspace: Path
) -> None:
    readme = (workspace / "README.md").read_text()
    app = make_app(fake_llm, workspace, settings=_auto_edit(fake_llm))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _two_turns_with_edits(pilot, fake_llm, workspace)
        screen = await _open_with_escape_twice(pilot)
        assert [p.text for p in screen.points] == ["write the notes and edit the README", "first, say hello"]
        await pilot.press("enter")  # the newest is highlighted
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="undo question")
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert confirm.question == "Undo the agent's changes to 2 files since that message?"
        assert "remove  notes/todo.txt" in confirm.detail and "restore README.md" in confirm.detail
        await pilot.press("y")
        await wait_until(pilot, lambda: not (workspace / "notes" / "todo.txt").exists(), what="undo applied")
        await app.workers.wait_for_complete()
        assert (workspace / "README.md").read_text() == readme
        assert app.prompt.text == "write the notes and edit the README"
        assert [rendered_text(v) for v in views_of(app, UserView)] == ["first, say hello"]
        assert [markdown_source(v) for v in views_of(app, AssistantView)] == ["Hello."]
        records = record_lines(app)
        rewinds = [r for r in records if r.get("subtype") == "rewind"]
        assert len(rewinds) == 1 and rewinds[0]["systemPayload"]["userOrdinal"] == 1
        restores = [r["systemPayload"] for r in records if r.get("subtype") == "file_change" and r["systemPayload"]["tool"] == "rewind"]
        assert sorted(Path(r["path"]).name for r in restores) == ["README.md", "todo.txt"]
        assert sum(1 for r in records if r["type"] == "user") == 2, "nothing is deleted from the record"

        # The edited message continues on the branch: the rewound turn is not in the request.
        fake_llm.push(Reply.text("Only the notes, then."))
        await send(pilot, "write only the notes")
        sent = fake_llm.requests[-1].messages
        users = [m["content"] for m in sent if m["role"] == "user"]
        assert users[-2:] == ["first, say hello", "write only the notes"]
        assert not any("write the notes and edit the README" in str(m.get("content")) for m in sent)
        assert not any(m.get("tool_calls") for m in sent)


async def test_rewind_puts_the_message_back_alone_keeps_unsent_words_in_the_history_and_declining_the_undo_leaves_the_files(
    fake_llm: FakeOpenAIServer, workspace: Path
) -> None:
    app = make_app(fake_llm, workspace, settings=_auto_edit(fake_llm))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _two_turns_with_edits(pilot, fake_llm, workspace)
        await type_text(pilot, "half a thought")
        screen = await _open_with_escape_twice(pilot)
        await pilot.press("slash")
        screen.filter_box.insert_text_at_cursor("hello")
        await pilot.pause()
        assert [p.text for p in screen._rows] == ["first, say hello"]
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="undo question")
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="question answered")
        await app.workers.wait_for_complete()
        assert app.prompt.text == "first, say hello", "the old message alone: Enter must not send the two glued"
        assert (workspace / "notes" / "todo.txt").exists(), "declined: the files stay as the agent left them"
        assert views_of(app, UserView) == []
        assert any("what you had typed" in n.message and "↑" in n.message for n in app._notifications)
        fake_llm.push(Reply.text("Hello again."))
        await pilot.press("enter")
        await wait_turn_done(pilot)
        sent = [m for m in fake_llm.requests[-1].body["messages"] if m["role"] == "user"]
        assert "half a thought" not in str(sent[-1]["content"])
        await pilot.press("up", "up")
        assert app.prompt.text == "half a thought", "the unsent words are in the prompt history"


async def test_slash_rewind_and_escape_closes_without_changing_anything(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hi."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await run_command(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindScreen), what="rewind picker")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen), what="picker closed")
        assert [rendered_text(v) for v in views_of(app, UserView)] == ["hello"]
        assert not any(r.get("subtype") == "rewind" for r in record_lines(app))


async def test_escape_during_a_turn_still_cancels_and_opens_no_picker(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hi."))
    fake_llm.push(Reply.text("slow ", "answer", delay=5.0))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await send(pilot, "take your time", wait=False)
        await wait_until(pilot, lambda: bool(app.runtime and app.runtime.agent and app.runtime.agent.busy), what="turn running")
        await pilot.press("escape", "escape")
        await wait_turn_done(pilot)
        assert not isinstance(app.screen, RewindScreen)
        assert any(r.get("subtype") == "turn_cancelled" for r in record_lines(app))


async def test_escape_twice_with_nothing_to_rewind_does_nothing(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen) and list(app._notifications) == []
        await run_command(pilot, "/rewind")
        assert any("no earlier message of yours" in n.message for n in app._notifications)


async def test_resume_shows_the_rewound_view_and_continues_on_the_branch(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("One."), Reply.text("Two."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await send(pilot, "second")
        await _open_with_escape_twice(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, RewindScreen), what="rewound")
        await app.workers.wait_for_complete()
        session_id = app.runtime.session_id  # type: ignore[union-attr]

    fake_llm.push(Reply.text("Three."))
    resumed = make_app(fake_llm, workspace, resume=session_id)
    async with resumed.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert isinstance(resumed, AgentctxApp)
        assert [rendered_text(v) for v in views_of(resumed, UserView)] == ["first"]
        await send(pilot, "second, said better")
        users = [m["content"] for m in fake_llm.requests[-1].messages if m["role"] == "user"]
        assert users[-2:] == ["first", "second, said better"]
        assert "second" not in users


async def test_a_suggestion_prepared_for_the_old_branch_is_dropped_by_the_rewind(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    (workspace / "app.py").write_text("def greet():\n    return 'helo'\n", encoding="utf-8")
    fake_llm.push(Reply.text("It greets, but 'helo' is misspelled."), Reply.text("fix the typo"))
    fake_llm.push(Reply.tool_calls([("e1", "edit", {"path": "app.py", "old_string": "'helo'", "new_string": "'hello'"})]), Reply.text("Fixed."))
    settings = make_settings(fake_llm)
    settings.suggestions.enabled = True
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "what does app.py do?")
        await wait_until(pilot, lambda: app.suggestions.speculation is not None and app.suggestions.speculation.status == "ready", what="prepared")
        speculation = app.suggestions.speculation
        await _open_with_escape_twice(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.prompt.text == "what does app.py do?", what="rewound")
        assert app.suggestions.speculation is None and app.prompt.follow_up == ""
        assert speculation.status == "cancelled" and not speculation.overlay.shadow.exists()
        assert (workspace / "app.py").read_text() == "def greet():\n    return 'helo'\n"
