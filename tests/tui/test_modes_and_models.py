"""shift+tab and /approval-mode change the approval mode; /model switches the model from the endpoint's list.

Each mode is checked by what it does to the next tool call and the next request,
not only by what the status line says.
"""

from __future__ import annotations

from pathlib import Path

from pytest import MonkeyPatch
from textual.pilot import Pilot

from app.core.tools.permissions import ApprovalMode
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.help import HelpScreen
from app.tui.screens.model_picker import ModelPickerScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    CONTEXT_WINDOW,
    SIZE,
    make_app,
    notifications,
    ready,
    rendered_text,
    run_command,
    send,
    wait_until,
)


def _write(path: str, content: str) -> Reply:
    return Reply.tool_calls([("call_1", "write_file", {"path": path, "content": content})])


def _offered_tools(server: FakeOpenAIServer) -> list[str]:
    return [tool["function"]["name"] for tool in server.requests[-1].body.get("tools", [])]


async def test_shift_tab_cycles_the_modes_and_the_status_line_shows_each(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.status.mode == "default"
        assert "default" not in rendered_text(app.status), "the default mode is not spelt out (as in Qwen Code)"
        await pilot.press("shift+tab")
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.AUTO_EDIT
        assert "auto-edit" in rendered_text(app.status)
        await pilot.press("shift+tab")
        assert app.runtime.policy.mode is ApprovalMode.PLAN
        assert "plan" in rendered_text(app.status)
        assert app.focused is app.prompt, "shift+tab changes the mode, it does not move focus"
        await pilot.press("shift+tab")  # yolo asks first
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="yolo question")
        assert app.runtime.policy.mode is ApprovalMode.PLAN, "nothing changes before the answer"
        await pilot.press("y")
        assert app.runtime.policy.mode is ApprovalMode.YOLO
        assert "yolo" in rendered_text(app.status)
        await pilot.press("shift+tab")
        assert app.runtime.policy.mode is ApprovalMode.DEFAULT
        assert "yolo" not in rendered_text(app.status)


async def test_yolo_is_asked_once_per_session_and_no_keeps_the_mode(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/approval-mode yolo")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="yolo question")
        await pilot.press("n")
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.DEFAULT
        assert "Stayed in default mode." in notifications(app)

        await run_command(pilot, "/approval-mode yolo")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="yolo question again")
        await pilot.press("y")
        assert app.runtime.policy.mode is ApprovalMode.YOLO
        await run_command(pilot, "/approval-mode default")
        await run_command(pilot, "/approval-mode yolo")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen), "said yes once in this session"
        assert app.runtime.policy.mode is ApprovalMode.YOLO

        first_id = app.runtime.session_id
        await pilot.press("ctrl+n")  # a new session asks again
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id != first_id, what="new session")
        await ready(pilot)
        await run_command(pilot, "/approval-mode default")
        await run_command(pilot, "/approval-mode yolo")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="asked in the new session")


async def test_a_new_session_keeps_the_chosen_mode(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/approval-mode auto-edit")
        before = app.runtime.session_id if app.runtime else ""
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.session_id != before, what="new session")
        await ready(pilot)
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.AUTO_EDIT
        assert app.status.mode == "auto-edit"


async def test_auto_edit_writes_without_asking_and_plan_offers_and_allows_no_write(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(_write("a.txt", "one\n"), Reply.text("Wrote a.txt."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("shift+tab")  # auto-edit
        await send(pilot, "write a.txt")
        assert (workspace / "a.txt").read_text(encoding="utf-8") == "one\n", "auto-edit: written without a question"

        await pilot.press("shift+tab")  # plan
        fake_llm.push(_write("b.txt", "two\n"), Reply.text("I could not write it."))
        await send(pilot, "write b.txt")
        assert not (workspace / "b.txt").exists(), "plan mode writes nothing"
        assert "write_file" not in _offered_tools(fake_llm) and "read_file" in _offered_tools(fake_llm)
        refusal = fake_llm.requests[-1].messages[-1]
        assert refusal["role"] == "tool" and refusal["content"].startswith("Unknown tool 'write_file'")

        await pilot.press("shift+tab")  # yolo asks; say no: back to plan, then on to default
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="yolo question")
        await pilot.press("n")
        await run_command(pilot, "/approval-mode default")
        fake_llm.push(Reply.text("ok"))
        await send(pilot, "hi")
        assert "write_file" in _offered_tools(fake_llm), "leaving plan mode offers the writing tools again"


async def test_approval_mode_command_without_or_with_a_wrong_mode_says_what_is_in_force(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/approval-mode")
        assert any(n.startswith("Approval mode: default (asks before file edits and commands).") for n in notifications(app))
        await run_command(pilot, "/approval-mode careful")
        assert "Unknown approval mode 'careful'; use one of default, auto-edit, plan, yolo." in notifications(app, "warning")
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.DEFAULT


async def test_shift_tab_under_a_dialog_leaves_the_mode_alone(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.press("shift+tab")
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.DEFAULT


def _served_models(server: FakeOpenAIServer) -> None:
    server.models = ["fake-model", "qwen3-coder-plus", "gpt-4o"]


async def test_model_picker_lists_the_endpoint_models_and_switching_moves_window_and_requests(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _served_models(fake_llm)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.gauge.window == CONTEXT_WINDOW
        await run_command(pilot, "/model")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), what="model picker")
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        assert screen.models == ["fake-model", "gpt-4o", "qwen3-coder-plus"]
        assert screen.query_one("#model-list").highlighted == 0, "the current model is highlighted"
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: app.status.model == "qwen3-coder-plus", what="switched")
        assert app.gauge.window == 1_000_000, "the window of the new model's family (the override was for fake-model)"
        assert app.runtime is not None and app.runtime.context_window == 1_000_000
        assert "Now talking to qwen3-coder-plus (context window 1M)." in notifications(app)

        fake_llm.push(Reply.text("hello from the new model"))
        await send(pilot, "hi")
        assert fake_llm.requests[-1].body["model"] == "qwen3-coder-plus"

        await run_command(pilot, "/model fake-model")  # back: the configured window returns with it
        await wait_until(pilot, lambda: app.status.model == "fake-model", what="switched back")
        assert app.gauge.window == CONTEXT_WINDOW


async def test_model_by_name_must_be_one_the_endpoint_lists(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _served_models(fake_llm)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/model gpt-9")
        await wait_until(pilot, lambda: bool(notifications(app, "warning")), what="refusal")
        assert notifications(app, "warning") == [f"'gpt-9' is not among the models of {fake_llm.base_url}: fake-model, gpt-4o, qwen3-coder-plus."]
        assert app.status.model == "fake-model"


async def test_model_list_failure_is_worded_with_the_endpoint(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        base_url = fake_llm.base_url
        fake_llm.stop()  # the endpoint goes away
        await run_command(pilot, "/model")
        await wait_until(pilot, lambda: bool(notifications(app, "error")), what="error shown", max_iters=4000)
        [problem] = notifications(app, "error")
        assert problem.startswith(f"Could not list the models of {base_url}/models: ")
        assert problem.endswith("Check model.base_url, or type /model NAME.")
        assert not isinstance(app.screen, ModelPickerScreen)


def test_snapshot_status_line_in_auto_edit_and_the_model_picker(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, monkeypatch: MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: "5e55104d-0000-4000-8000-000000000000")
    app = make_app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await pilot.press("shift+tab")
        pilot.app.clear_notifications()
        # Pushed directly with a pinned endpoint (the fake server's port changes every run);
        # the /model flow that opens it is the Pilot test above.
        models = ["fake-model", "gpt-4o", "qwen3-coder-plus"]
        pilot.app.push_screen(ModelPickerScreen(models, current="fake-model", endpoint="http://127.0.0.1:8000/v1"))
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ModelPickerScreen), what="model picker")
        pilot.app.prompt.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


async def test_shift_tab_from_plan_comes_back_to_default_when_yolo_is_declined(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    """The ring always leads home: from plan, shift+tab asks about yolo, and "no" goes on to default
    (it stayed in plan, so default was reachable only by typing /approval-mode default)."""
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.runtime is not None
        for _ in range(2):  # a second round: declining once does not change the ring
            await pilot.press("shift+tab", "shift+tab")
            assert app.runtime.policy.mode is ApprovalMode.PLAN
            await pilot.press("shift+tab")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="yolo question")
            assert "n goes on to default" in rendered_text(app.screen.query_one("#confirm-detail"))
            await pilot.press("n")
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen)
            assert app.runtime.policy.mode is ApprovalMode.DEFAULT, "declining yolo from the ring lands on default"
            assert app.status.mode == "default"
        assert any("default" in n and "yolo" in n for n in notifications(app))
