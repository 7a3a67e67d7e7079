"""/context, /memory and /init from the prompt: the reports, the injected instruction text, re-reading it, writing QWEN.md."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from app.config import Settings
from app.context.prompt.base import template
from app.context.report import ContextReport, render_detail, render_list, render_map
from app.core.request import AssembledRequest
from app.core.tokens import estimate_tokens
from app.tui.controllers.context import UNKNOWN_MODE
from app.tui.guards import STARTING_UP
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.first_run import FirstRunScreen
from app.tui.screens.text_view import TextScreen
from app.tui.widgets.message_views import UserView
from app.tui.widgets.status import format_tokens
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    QWEN_BLOCK,
    QWEN_MD,
    SIZE,
    make_app,
    notifications,
    ready,
    rendered_text,
    run_command,
    send,
    shown_text,
    text_screen,
    views_of,
    wait_turn_done,
    wait_until,
    write_instructions,
)

AGENTS_BLOCK = "--- Context from: AGENTS.md ---\nPrefer small commits.\n--- End of Context from: AGENTS.md ---"


async def _open(pilot, command: str) -> TextScreen:  # type: ignore[no-untyped-def]
    await run_command(pilot, command)
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, TextScreen), what=f"{command} screen")
    return text_screen(pilot.app)


async def _close(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, TextScreen), what="text screen closed")


def _system_prompt(fake_llm: FakeOpenAIServer, index: int = -1) -> str:
    first = fake_llm.requests[index].messages[0]
    assert first["role"] == "system"
    return str(first["content"])


# -- /context ---------------------------------------------------------------------------------------

# After the two requests of _after_a_turn_with_a_tool_call (2,400 and 2,500 prompt tokens, no cache reported).
NO_CACHE_LINES = (
    "Prompt cache (as the endpoint reported it):\n"
    "  last request: 0 of 2,500 prompt tokens (0%) served from the cache\n"
    "  this session: 0 of 4,900 prompt tokens (0%) served from the cache\n"
    "  (the endpoint reports no cached tokens: it may not cache prompts, or not say so)"
)


async def test_context_before_any_request_is_assembled_on_the_spot(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot, "/context")

        assert screen.title_text == "Context"
        lines = shown_text(screen).splitlines()
        assert lines[0] == "Context breakdown — assembled now, not sent · estimated token counts (UTF-8 bytes/4)"
        assert lines[1].startswith(f"Model fake-model · session {app.runtime.session_id[:8]} · ")  # type: ignore[union-attr]
        assert lines[2].startswith("Window 32,000 · used ")
        assert lines[3] == "Thresholds: warn 19,200 · auto-compact 22,400 · hard 25,400 (the default formula: auto at max(70% of the window, window - 33,000))"
        qwen = next(line for line in lines if line.startswith("  QWEN.md "))
        assert qwen.split()[1] == "OK" and f"{estimate_tokens(QWEN_BLOCK)} tok" in qwen
        assert any(line.split() == ["AGENTS.md", "MISSING"] for line in lines)
        cache = lines.index("Prompt cache (as the endpoint reported it):")
        assert lines[cache - 2].startswith("Messages: session prelude 2 (")
        assert lines[cache + 1 :] == ["  last request: not reported", "  this session: not reported"]
        assert not fake_llm.requests, "nothing is sent to show the estimate"

        await _close(pilot)
        assert app.focused is app.prompt


async def test_context_shows_a_cut_instruction_file_in_its_own_colour(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    (workspace / "AGENTS.md").write_text("".join(f"- rule {i}: keep the tests green\n" for i in range(1500)), encoding="utf-8")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot, "/context")
        lines = screen._content().split("\n")
        cut = next(line for line in lines if line.plain.startswith("  AGENTS.md "))
        whole = next(line for line in lines if line.plain.startswith("  QWEN.md "))
        assert cut.plain.split()[1] == "TRUNCATED"
        assert "$warning" in str(cut.spans) and "$warning" not in str(whole.spans)


async def _after_a_turn_with_a_tool_call(pilot, fake_llm: FakeOpenAIServer) -> tuple[AssembledRequest, ContextReport]:  # type: ignore[no-untyped-def]
    fake_llm.push(
        Reply.tool_calls([("call_1", "read_file", {"path": "README.md"})], usage=(2400, 20)),
        Reply.text("A demo.", usage=(2500, 12)),
    )
    app = await ready(pilot)
    await send(pilot, "what is this?")
    assert app.runtime is not None
    request = app.runtime.assembler.last_request
    report = app.context.current_report()
    assert request is not None and report is not None and report.source == "run"
    return request, report


async def test_context_and_context_list_show_the_last_request(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        request, report = await _after_a_turn_with_a_tool_call(pilot, fake_llm)

        screen = await _open(pilot, "/context")
        assert screen.title_text == "Context"
        body = shown_text(screen)
        # The report of the request, then the prompt cache as the endpoint reported it (none here).
        assert body == render_list(report) + "\n\n" + NO_CACHE_LINES
        assert body.startswith("Context breakdown — last request sent · ")
        assert f"Server reported 2,500 prompt tokens; tracked {request.total_tokens:,}" in body
        messages = render_list(report).splitlines()[-1]
        assert re.fullmatch(r"Messages: session prelude 2 \(\d+ tok\), user 1 \(\d+ tok\), assistant 1 \(\d+ tok\), tool results 1 \(\d+ tok\)", messages)
        await _close(pilot)

        screen = await _open(pilot, "/context list")
        assert screen.title_text == "Context" and screen.body == render_list(report) + "\n\n" + NO_CACHE_LINES
        await _close(pilot)
        assert app.focused is app.prompt
        assert len(fake_llm.requests) == 2, "reports never call the model"


async def test_context_detail_map_and_json(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        request, report = await _after_a_turn_with_a_tool_call(pilot, fake_llm)

        screen = await _open(pilot, "/context detail")
        assert screen.title_text == "Context (detail)" and screen.body == render_detail(report) + "\n\n" + NO_CACHE_LINES
        assert "Top tools by schema size:" in screen.body and "  read_file " in screen.body
        await _close(pilot)

        screen = await _open(pilot, "/context map")
        assert screen.title_text == "Context map" and screen.body == render_map(report)
        assert "  marks: w warn · a auto-compact · h hard" in screen.body
        await _close(pilot)

        screen = await _open(pilot, "/context json")
        assert screen.title_text == "Context (json)"
        data = json.loads(screen.body)
        assert data["source"] == "run"
        assert data["reported_prompt_tokens"] == 2500 and data["used_tokens"] == 2500
        assert data["tracked_tokens"] == request.total_tokens
        assert [row["name"] for row in data["instruction_files"]] == ["QWEN.md", "AGENTS.md"]
        assert [row["status"] for row in data["instruction_files"]] == ["OK", "MISSING"]
        assert len(fake_llm.requests) == 2, "reports never call the model"


async def test_an_unknown_context_mode_says_which_modes_exist(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/context everything")
        assert notifications(app, "warning") == [UNKNOWN_MODE]
        assert UNKNOWN_MODE == "Unknown /context mode. Use: /context, /context list, /context detail, /context map, or /context json"
        assert not isinstance(app.screen, TextScreen)
        assert app.prompt.text == ""


# -- /memory ----------------------------------------------------------------------------------------


async def test_memory_show_has_the_injected_text_of_every_file(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    (workspace / "AGENTS.md").write_text("Prefer small commits.\n", encoding="utf-8")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot, "/memory show")
        assert screen.title_text == "Instruction files, as injected"
        assert screen.body == f"{QWEN_BLOCK}\n\n{AGENTS_BLOCK}"
        assert shown_text(screen) == screen.body
        tokens = estimate_tokens(QWEN_BLOCK) + estimate_tokens(AGENTS_BLOCK)
        assert screen.subtitle == f"2 files · {format_tokens(tokens)} tokens"
        await _close(pilot)


async def test_memory_show_without_instruction_files_says_how_to_add_one(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open(pilot, "/memory show")
        assert shown_text(screen) == "No instruction files found. Create QWEN.md or AGENTS.md in the project (or /init)."
        assert screen.subtitle == "0 files · 0 tokens"


async def test_memory_show_puts_the_global_file_first(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    app = make_app(fake_llm, workspace)
    app.paths.config_dir.mkdir(parents=True, exist_ok=True)
    (app.paths.config_dir / "QWEN.md").write_text("Answer in English.\n", encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        body = (await _open(pilot, "/memory show")).body
        global_at, project_at = body.find("Answer in English."), body.find(QWEN_BLOCK)
        assert 0 <= global_at < project_at
        assert body.startswith("--- Context from: ") and "config/QWEN.md ---\nAnswer in English." in body


async def test_memory_refresh_rereads_the_files_for_the_next_request(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    (workspace / "QWEN.md").write_text("Use tabs.\n", encoding="utf-8")
    fake_llm.push(Reply.text("One."), Reply.text("Two."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        (workspace / "QWEN.md").write_text("Use spaces.\n", encoding="utf-8")
        (workspace / "AGENTS.md").write_text("Prefer small commits.\n", encoding="utf-8")

        await send(pilot, "first")
        first = _system_prompt(fake_llm)
        assert "Use tabs." in first and "Use spaces." not in first, "files are read once per session until a refresh"

        await run_command(pilot, "/memory refresh")
        await wait_until(pilot, lambda: notifications(app), what="refresh notification")
        new_block = "--- Context from: QWEN.md ---\nUse spaces.\n--- End of Context from: QWEN.md ---"
        tokens = estimate_tokens(new_block) + estimate_tokens(AGENTS_BLOCK)
        assert notifications(app) == [f"Re-read 2 instruction files, {format_tokens(tokens)} tokens. The next request uses them."]
        assert len(fake_llm.requests) == 1, "refreshing sends nothing"

        await send(pilot, "second")
        second = _system_prompt(fake_llm)
        assert f"---\n\n{new_block}\n\n{AGENTS_BLOCK}\n\n---\n\n" in second, "the files, then the auto-memory section"
        assert "Use tabs." not in second
        assert [m["content"] for m in fake_llm.requests[-1].conversation if m["role"] == "user"] == ["first", "second"]


async def test_memory_with_an_unknown_word_shows_the_usage(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/memory foo")
        assert notifications(app, "warning") == ["Usage: /memory show | /memory refresh"]
        assert not isinstance(app.screen, TextScreen)


# -- /init ------------------------------------------------------------------------------------------


def _init_prompt(name: str = "QWEN.md") -> str:
    prompt = template("init").replace("$filename", name)
    assert name in prompt and "$filename" not in prompt
    return prompt


async def test_init_without_a_context_file_asks_the_model_to_write_one(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("I would start by reading the README."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/init")
        await wait_turn_done(pilot)

        assert not isinstance(app.screen, ConfirmScreen), "nothing to overwrite, nothing to ask"
        assert fake_llm.requests[0].conversation == [{"role": "user", "content": _init_prompt()}]
        [user] = views_of(app, UserView)
        assert rendered_text(user) == _init_prompt()
        assert app.prompt.text == ""


async def test_init_writes_the_configured_file_name(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    (workspace / "QWEN.md").write_text("   \n\n", encoding="utf-8")  # blank: nothing worth asking about
    fake_llm.push(Reply.text("Reading first."))
    app = make_app(fake_llm, workspace)
    app.settings.context.file_name = ["", "AGENTS.md", "QWEN.md"]
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run_command(pilot, "/init")
        await wait_turn_done(pilot)
        assert fake_llm.requests[0].conversation == [{"role": "user", "content": _init_prompt("AGENTS.md")}]


async def test_init_over_an_existing_file_asks_first(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    fake_llm.push(Reply.text("I will read the project first."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)

        for answer in ("n", "escape"):
            await run_command(pilot, "/init")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="overwrite question")
            question = rendered_text(app.screen.query_one("#confirm-question"))
            assert question == f"QWEN.md already exists ({len(QWEN_MD):,} characters). Write a new one over it?"
            await pilot.press(answer)
            await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what=f"question answered {answer}")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert not fake_llm.requests and not views_of(app, UserView), f"{answer}: no turn"
            assert app.focused is app.prompt

        await run_command(pilot, "/init")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="overwrite question")
        await pilot.press("y")
        await wait_until(pilot, lambda: bool(fake_llm.requests), what="init turn started")
        await wait_turn_done(pilot)
        assert fake_llm.requests[0].conversation == [{"role": "user", "content": _init_prompt()}]
        assert (workspace / "QWEN.md").read_text(encoding="utf-8") == QWEN_MD, "only the model's write_file would change it"


async def test_init_during_a_turn_waits(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["working"]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "long task", wait=False)
        await wait_until(pilot, lambda: app.conversation.transcript.last_answer() == "working", what="turn streaming")
        await run_command(pilot, "/init")
        assert notifications(app, "warning") == ["A turn is running; wait for it or press Esc first."]
        await pilot.press("escape")
        await wait_turn_done(pilot)
        assert len(fake_llm.requests) == 1


async def test_init_without_an_endpoint_says_a_model_is_needed(workspace: Path) -> None:
    app = make_app(None, workspace, settings=Settings())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FirstRunScreen), what="first-run screen")
        await ready(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FirstRunScreen), what="first-run closed")

        await run_command(pilot, "/init")
        assert notifications(app, "error") == ["/init needs a model: configure an endpoint first (F1 for help)."]
        assert not isinstance(app.screen, ConfirmScreen)
        assert not app.conversation.children or not views_of(app, UserView)



async def test_commands_typed_before_the_session_opens_say_so(fake_llm: FakeOpenAIServer, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.tui.app as app_module

    opened = threading.Event()
    build_runtime = app_module.build_runtime

    def slow_build_runtime(*args, **kwargs):  # type: ignore[no-untyped-def]
        opened.wait(10)
        return build_runtime(*args, **kwargs)

    monkeypatch.setattr(app_module, "build_runtime", slow_build_runtime)
    app = make_app(fake_llm, workspace)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.runtime is None
            for command in ("/init", "/memory show", "/memory refresh", "/context"):
                await run_command(pilot, command)
            assert notifications(app) == [STARTING_UP] * 4, "an endpoint is configured: not '/init needs a model'"
            assert not isinstance(app.screen, (TextScreen, ConfirmScreen))
            opened.set()
            await ready(pilot)
            assert not fake_llm.requests
    finally:
        opened.set()
