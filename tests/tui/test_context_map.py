"""The live context map: the side panel, its keys, what it draws of the last request, opening a block."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from app.core.request import MESSAGES, SYSTEM, TOOLS, AssembledRequest, RequestPart
from app.core.tokens import estimate_tokens
from app.tui.app import style_path
from app.tui.screens.text_view import TextScreen
from app.tui.widgets.context_map import ContextMap, blocks_from_request
from app.tui.widgets.status import format_tokens
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    QWEN_BLOCK,
    SIZE,
    make_app,
    map_lines,
    notifications,
    ready,
    rendered_text,
    run_command,
    send,
    shown_text,
    text_screen,
    wait_turn_done,
    wait_until,
    write_instructions,
)

WIDE = (160, 40)


def _selected_line(lines: list[str]) -> str:
    [line] = [line for line in lines if line.startswith("▶ ")]
    return line


def _turn_with_a_tool_call(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.tool_calls([("call_1", "read_file", {"path": "README.md"})], text="Let me look.", usage=(2400, 20)),
        Reply.text("It is a demo project.", usage=(2500, 12)),
    )


# -- the panel ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "shown"), [(149, False), (150, True)])
async def test_the_panel_opens_by_itself_on_wide_terminals(fake_llm: FakeOpenAIServer, workspace: Path, width: int, shown: bool) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=(width, 40)) as pilot:
        await ready(pilot)
        assert app.query_one("#side").display is shown
        # A third of the terminal (34 %) less the border and padding: 51 - 2 columns at 150.
        assert app.context_map.display and app.context_map.region.width == (49 if shown else 0)
        assert app.focused is app.prompt, "the map does not take the prompt's focus"
        if shown:
            assert "Context map" in rendered_text(app.query_one("#side-title"))
            assert map_lines(app) == ["No request yet.", "Send a message to see what the model receives."]


async def test_slash_map_toggles_the_panel_and_keeps_typing_in_the_prompt(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        side = app.query_one("#side")
        assert not side.display

        await run_command(pilot, "/map")
        assert side.display and app.context_map.region.width == 38  # 34 % of 120 is 40, less border and padding
        assert app.conversation.region.width == SIZE[0] - 40
        assert app.focused is app.prompt and app.prompt.text == ""

        await run_command(pilot, "/map")
        assert not side.display
        assert app.conversation.region.width == SIZE[0]
        assert app.focused is app.prompt
        assert not notifications(app, "warning")


async def test_f2_moves_into_the_map_escape_leaves_it_and_f2_again_closes_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        side, context_map = app.query_one("#side"), app.context_map

        await pilot.press("f2")
        assert side.display and app.focused is context_map

        await pilot.press("escape")
        assert app.focused is app.prompt
        assert side.display, "Esc leaves the map open"

        await pilot.press("f2")  # open already: F2 from the prompt moves in again
        assert side.display and app.focused is context_map

        await pilot.press("f2")
        assert not side.display
        assert app.focused is app.prompt

        await pilot.press("f2")
        assert side.display and app.focused is context_map
        await pilot.press("enter")  # nothing to open before the first request
        assert not isinstance(app.screen, TextScreen)


# -- what it draws ----------------------------------------------------------------------------------


async def test_the_map_draws_the_last_request_by_source_with_the_reported_usage(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    _turn_with_a_tool_call(fake_llm)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "what is this project?")

        assert app.runtime is not None
        request = app.runtime.assembler.last_request
        assert request is not None and len(fake_llm.requests) == 2
        context_map = app.context_map
        names = [block.name for block in context_map.blocks]
        tools = len(app.runtime.registry.schemas())
        assert names[0] == "base prompt"
        assert names[-8:] == [
            "QWEN.md",
            "auto-memory",
            f"tool schemas ({tools})",
            "session prelude (2)",
            "skills listing (1)",
            "user messages (1)",
            "assistant replies (1)",
            "tool results (1)",
        ]
        assert sum(block.tokens for block in context_map.blocks) == request.total_tokens, "every part is on the map"
        [qwen] = [block for block in context_map.blocks if block.name == "QWEN.md"]
        assert qwen.group == "Instruction files"
        assert qwen.tokens > estimate_tokens(QWEN_BLOCK), "the separator before the file is folded into it"

        lines = map_lines(app)
        # The server's figure for the last request, not our estimate, heads the map.
        assert lines[0] == "2.5k / 32k (8%, reported)"
        # 50 cells (the map is 52 wide at 160 columns): 2.5k of 32k filled; warn / auto / hard at 60 / 70 / 79 %.
        assert lines[1] == "████" + "·" * 26 + "w" + "····" + "a" + "···" + "h" + "·" * 10
        assert lines[2] == f"▶ base prompt · {format_tokens(context_map.blocks[0].tokens)}"
        assert f"  QWEN.md · {format_tokens(qwen.tokens)}" in lines
        assert "  tool results (1) · " + format_tokens(context_map.blocks[-1].tokens) in lines
        assert lines[-1] == "free 29.5k (92%)"
        assert not any("streaming" in line for line in lines)
        assert len(lines) <= context_map.size.height


async def test_a_streaming_reply_grows_on_the_map_and_goes_when_the_turn_is_cancelled(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(30, after=["partial answer with several words in it"]))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "take your time", wait=False)
        await wait_until(pilot, lambda: any("streaming" in line for line in map_lines(app)), what="streaming block")

        lines = map_lines(app)
        streamed = estimate_tokens("partial answer with several words in it")
        assert f"  reply (streaming) {streamed}" in lines
        assert lines[0].endswith("estimate)"), "no usage reported yet: our own count"
        assert "user messages (1)" in lines[-3]
        free = app.context_map.window - app.context_map.used - streamed
        assert lines[-1].startswith(f"free {format_tokens(free)} ")

        # Esc in the map only leaves it: the turn goes on.
        await pilot.press("f2")
        await pilot.press("escape")
        assert app.focused is app.prompt
        assert app.runtime is not None and app.runtime.agent is not None and app.runtime.agent.busy

        await pilot.press("escape")
        await wait_turn_done(pilot)
        lines = map_lines(app)
        assert not any("streaming" in line for line in lines), "a cancelled reply does not stay on the map"
        assert lines[-1].startswith(f"free {format_tokens(app.context_map.window - app.context_map.used)} ")


async def test_a_failed_reply_leaves_no_streaming_block(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stream_error(["half an answer"], message="upstream overloaded"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        assert app.status.state == "error"
        assert app.context_map.blocks, "the request that was sent is still shown"
        assert not any("streaming" in line for line in map_lines(app))


# -- moving and opening -------------------------------------------------------------------------------


async def test_up_down_k_j_home_end_move_the_selection(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hi.", usage=(2000, 5)))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        context_map = app.context_map
        names = [block.name for block in context_map.blocks]
        last = len(names) - 1

        await pilot.press("f2")
        assert context_map.selected == 0
        for key, expected in [("down", 1), ("j", 2), ("down", 3), ("k", 2), ("up", 1), ("up", 0), ("up", 0), ("end", last), ("down", last), ("home", 0)]:
            await pilot.press(key)
            assert context_map.selected == expected, key
            assert _selected_line(map_lines(app)).startswith(f"▶ {names[expected]} · ")
        assert app.prompt.text == "", "the keys went to the map, not the prompt"


async def test_enter_shows_the_exact_text_of_the_block(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    fake_llm.push(Reply.text("Noted.", usage=(2000, 5)))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        context_map = app.context_map
        index = [block.name for block in context_map.blocks].index("QWEN.md")

        await pilot.press("f2", *["down"] * index)
        assert context_map.selected == index
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="block text")

        screen = text_screen(app)
        assert screen.title_text == "QWEN.md"
        assert screen.body == QWEN_BLOCK, "the injected block, the @import expanded in place"
        assert shown_text(screen) == QWEN_BLOCK
        assert QWEN_BLOCK in fake_llm.requests[-1].messages[0]["content"], "what the map shows is what was sent"
        tokens = context_map.blocks[index].tokens
        assert screen.subtitle == f"Instruction files · {format_tokens(tokens)} tokens · {workspace / 'QWEN.md'}"

        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, TextScreen), what="block text closed")
        assert app.focused is context_map and context_map.selected == index

        # A pooled block shows each of its parts under its own heading.
        prelude = [block.name for block in context_map.blocks].index("session prelude (2)")
        await pilot.press(*["down"] * (prelude - index), "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="prelude text")
        body = text_screen(app).body
        assert body.startswith("── session prelude · environment ──\n<system-reminder>\n")
        assert "\n\n── session prelude · message 2 ──\n" in body
        environment = fake_llm.requests[-1].messages[1]["content"].split("\n\n<system-reminder>")[0]
        assert environment.strip() in body, "the environment part; the skills snapshot is its own block"


async def test_the_selection_stays_on_its_block_when_the_next_request_moves_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    write_instructions(workspace)
    fake_llm.push(Reply.text("One.", usage=(2000, 5)), Reply.text("Two.", usage=(2100, 5)))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        context_map = app.context_map
        index = [block.name for block in context_map.blocks].index("QWEN.md")
        await pilot.press("f2", *["down"] * index, "escape")
        assert app.focused is app.prompt

        # A global instruction file comes before the project's, so QWEN.md moves one block down.
        app.paths.config_dir.mkdir(parents=True, exist_ok=True)
        (app.paths.config_dir / "QWEN.md").write_text("Answer in English.\n", encoding="utf-8")
        await run_command(pilot, "/memory refresh")
        await send(pilot, "second")

        names = [block.name for block in context_map.blocks]
        assert names.index("QWEN.md") == index + 1
        assert context_map.selected == index + 1
        assert _selected_line(map_lines(app)).startswith("▶ QWEN.md · ")
        assert map_lines(app)[0] == "2.1k / 32k (7%, reported)"


# -- the widget alone: proportional heights and the gauge ----------------------------------------------


class _MapHost(App[None]):
    CSS_PATH = [style_path("app.tcss")]

    def compose(self) -> ComposeResult:
        yield ContextMap(id="context-map")


def _part(block: str, kind: str, name: str, tokens: int, text: str = "") -> RequestPart:
    return RequestPart(block=block, kind=kind, name=name, source=f"from {name}", text=text or f"<{name}>", tokens=tokens)


def _request() -> AssembledRequest:
    """5k of a 10k window: a 2k prompt section, 1k each of instructions (with its separator) and tools."""
    parts = [
        _part(SYSTEM, "section", "base prompt", 2000),
        _part(SYSTEM, "separator", "separator", 10, "\n\n---\n\n"),
        _part(SYSTEM, "instruction_file", "QWEN.md", 990),
        _part(TOOLS, "tool_schema", "read_file", 600),
        _part(TOOLS, "tool_schema", "write_file", 400),
        _part(MESSAGES, "prelude", "session prelude", 60),
        _part(MESSAGES, "prelude", "session prelude", 40),
        _part(MESSAGES, "user", "user", 500),
        _part(MESSAGES, "assistant", "assistant", 400),
    ]
    return AssembledRequest(parts=parts, messages=[], tools=[], model="m", context_window=10_000)


async def test_block_heights_are_proportional_to_tokens_with_the_threshold_marks() -> None:
    app = _MapHost()
    async with app.run_test(size=(44, 24)) as pilot:
        context_map = app.query_one(ContextMap)
        context_map.show_request(_request())
        await pilot.pause()
        # 20 rows stand for the 10k window: 500 tokens a row, at least one row a block.
        assert map_lines(app) == [
            "5k / 10k (50%, estimate)",
            "█" * 21 + "····w···a" + "·" * 11 + "h",
            "▶ base prompt · 2k",
            "",
            "",
            "",
            "  QWEN.md · 1k",
            "",
            "  tool schemas (2) · 1k",
            "",
            "  session prelude (2) · 100",
            "  user messages (1) · 500",
            "  assistant replies (1) · 400",
            "free 5k (50%)",
        ]

        context_map.set_reported(6_000)
        context_map.set_streaming(1_000)
        await pilot.pause()
        lines = map_lines(app)
        assert lines[0] == "6k / 10k (60%, reported)"
        assert lines[-2:] == ["  reply (streaming) 1k", "free 3k (30%)"]


async def test_too_many_blocks_for_the_height_get_one_row_each() -> None:
    app = _MapHost()
    async with app.run_test(size=(44, 10)) as pilot:
        app.query_one(ContextMap).show_request(_request())
        await pilot.pause()
        lines = map_lines(app)
        assert lines[2:-1] == [
            "▶ base prompt · 2k",
            "  QWEN.md · 1k",
            "  tool schemas (2) · 1k",
            "  session prelude (2) · 100",
            "  user messages (1) · 500",
            "  assistant replies (1) · 400",
        ]


def test_blocks_fold_separators_and_pool_tools_and_messages() -> None:
    blocks = blocks_from_request(_request())
    qwen, tools = blocks[1], blocks[2]
    assert (qwen.name, qwen.tokens, qwen.text) == ("QWEN.md", 1000, "<QWEN.md>"), "the separator counts but is not shown"
    assert tools.text == "── read_file · from read_file ──\n<read_file>\n\n── write_file · from write_file ──\n<write_file>"


async def test_the_map_marks_the_thresholds_the_gauge_acts_on(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    from tests.tui.helpers import make_settings

    settings = make_settings(fake_llm)
    settings.compaction.pct = 0.5
    fake_llm.push(Reply.text("Hello.", usage=(2400, 5)))
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await wait_until(pilot, lambda: app.context_map.thresholds is not None, what="the map drawn")
        from app.context.compaction.thresholds import compute_thresholds

        gauge = compute_thresholds(app.gauge.window, app.gauge.pct)
        assert app.gauge.pct == 0.5 and app.context_map.thresholds == gauge


async def test_a_cut_instruction_file_has_its_own_colour() -> None:
    request = _request()
    request.parts.insert(3, _part(SYSTEM, "instruction_file", "AGENTS.md", 900))
    request.parts[3].status = "TRUNCATED"
    app = _MapHost()
    async with app.run_test(size=(44, 24)) as pilot:
        context_map = app.query_one(ContextMap)
        context_map.show_request(request)
        await pilot.pause()
        lines = context_map.render().split("\n")
        cut = next(line for line in lines if "AGENTS.md TRUNCATED" in line.plain)
        whole = next(line for line in lines if "QWEN.md ·" in line.plain)
        assert "$warning" in str(cut.spans) and "$warning" not in str(whole.spans)
