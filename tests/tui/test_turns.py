"""A turn from the keyboard: prompt, streamed answer, tool rows, cancelling, model errors."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from app.tui.widgets.message_views import AssistantView, NoticeView, ToolView, UserView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    entry_views,
    make_app,
    markdown_source,
    notifications,
    ready,
    record_lines,
    rendered_text,
    send,
    type_text,
    views_of,
    wait_turn_done,
    wait_until,
)


async def test_prompt_enter_streams_the_answer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hello ", "**brave** ", "world.", usage=(1200, 34)))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_text(pilot, "say hi")
        assert app.prompt.text == "say hi"
        await pilot.press("enter")
        await wait_turn_done(pilot)

        user, answer = entry_views(app)
        assert isinstance(user, UserView) and rendered_text(user) == "say hi"
        assert isinstance(answer, AssistantView)
        assert markdown_source(answer) == "Hello **brave** world."
        blocks = " ".join(str(block._content.plain) for block in answer.query_one(Markdown).query(MarkdownBlock))
        assert "Hello brave world." in blocks, "the Markdown is rendered, not shown raw"
        assert app.prompt.text == ""
        status = rendered_text(app.status)
        assert "idle" in status and "fake-model" in status
        assert "tokens" not in status, "the token count lives in the gauge, not twice"
        assert "1.2k / 32k · Context left 96% (reported)" in rendered_text(app.gauge)
        assert fake_llm.requests[-1].messages[-1] == {"role": "user", "content": "say hi"}
        assert [r["type"] for r in record_lines(app)] == ["user", "assistant"]


async def test_tool_call_row_is_collapsed_and_ctrl_o_toggles_its_output(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(
        Reply.tool_calls([("call_1", "read_file", {"path": "README.md"})], text="Let me look."),
        Reply.text("It is a demo project."),
    )
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "what is this project?")

        kinds = [type(v).__name__ for v in entry_views(app)]
        assert kinds == ["UserView", "AssistantView", "ToolView", "AssistantView"]
        [tool] = views_of(app, ToolView)
        collapsed = rendered_text(tool)
        assert collapsed == "▶ ✓ read_file README.md · 3 lines"
        assert "A tiny workspace" not in collapsed

        await pilot.press("ctrl+o")
        expanded = rendered_text(tool)
        assert expanded.startswith("▼ ✓ read_file README.md · 3 lines\n")
        assert "A tiny workspace for the TUI tests." in expanded
        assert tool.size.height >= 4, "the output takes room on screen"

        await pilot.press("ctrl+o")
        assert rendered_text(tool) == collapsed
        assert app.focused is app.prompt, "toggling does not steal the prompt's focus"


async def test_failed_tool_call_is_marked(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(
        Reply.tool_calls([("call_1", "read_file", {"path": "missing.txt"})]),
        Reply.text("That file does not exist."),
    )
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "read missing.txt")
        [tool] = views_of(app, ToolView)
        assert rendered_text(tool).startswith("▶ ✗ read_file missing.txt")
        assert tool.has_class("failed")


async def test_escape_cancels_a_running_turn_and_keeps_the_partial_answer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["partial"]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "take your time", wait=False)
        await wait_until(pilot, lambda: app.conversation.transcript.last_answer() == "partial", what="partial text streamed")
        assert app.status.state != "idle"

        await pilot.press("escape")
        await wait_turn_done(pilot)

        notices = [rendered_text(v) for v in views_of(app, NoticeView)]
        assert any(n.startswith("Cancelled") for n in notices)
        [answer] = views_of(app, AssistantView)
        assert markdown_source(answer) == "partial"
        assert app.status.state == "idle"
        records = record_lines(app)
        assert records[0]["type"] == "user" and records[0]["message"]["content"] == "take your time"
        assert any(r["type"] == "assistant" and r["message"]["content"] == "partial" for r in records)

        fake_llm.push(Reply.text("Back again."))
        await send(pilot, "are you there?")
        answers = views_of(app, AssistantView)
        assert markdown_source(answers[-1]) == "Back again."
        sent = fake_llm.requests[-1].messages
        assert sent[-1] == {"role": "user", "content": "are you there?"}
        assert any(m.get("content") == "partial" for m in sent if m["role"] == "assistant")


async def test_model_error_is_shown_recorded_and_the_next_turn_works(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.error(401, {"error": {"message": "invalid api key", "type": "auth"}}))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello?")

        errors = [v for v in views_of(app, NoticeView) if v.has_class("error")]
        assert len(errors) == 1
        assert "API key" in rendered_text(errors[0])
        assert any("API key" in m for m in notifications(app, "error"))
        assert app.status.state == "error"
        assert app.prompt.text == "", "the prompt was sent; it is in the conversation and the record"
        records = record_lines(app)
        assert records[0]["type"] == "user" and records[0]["message"]["content"] == "hello?"

        fake_llm.push(Reply.text("Now it works."))
        await send(pilot, "try again")
        assert markdown_source(views_of(app, AssistantView)[-1]) == "Now it works."
        assert app.status.state == "idle"
        assert [m["content"] for m in fake_llm.requests[-1].conversation if m["role"] == "user"] == ["hello?", "try again"]


async def test_enter_during_a_turn_keeps_the_text_and_says_why(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["thinking"]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first", wait=False)
        await wait_until(pilot, lambda: app.conversation.transcript.last_answer() == "thinking", what="first turn streaming")
        await type_text(pilot, "second")
        await pilot.press("enter")
        assert app.prompt.text == "second"
        assert any("A turn is running" in m for m in notifications(app, "warning"))
        assert len(fake_llm.requests) == 1
        await pilot.press("escape")
        await wait_turn_done(pilot)


async def test_reasoning_streams_apart_from_the_answer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("The answer.", reasoning=["First I ", "consider the question."]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "think first")
        [answer] = views_of(app, AssistantView)
        assert markdown_source(answer) == "The answer."
        reasoning = answer.query_one(".reasoning")
        assert reasoning.display and rendered_text(reasoning) == "thought for 5 words"
