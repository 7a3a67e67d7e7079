"""Hand edits from the context map, by keyboard: → opens a pool into its parts, d drops, r restores, p pins
(again: unpins), e rewrites the summary in $EDITOR; the gauge moves at once, each edit is recorded, and a drop
that breaks the cached prefix says how many tokens first and asks."""

from __future__ import annotations

import contextlib
import json
import stat
from pathlib import Path

import pytest

from app.context.view_edits import cache_loss, part_id
from app.paths import Paths
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.text_view import TextScreen
from app.tui.widgets.status import format_tokens
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import exchange, make_app, map_lines, notifications, ready, record_lines, record_session, send, text_screen, tool_exchange, wait_until

WIDE = (160, 40)
BIG = "BIGLINE of a long build log\n" * 600
SUMMARY = "<state_snapshot><current_work>the parser</current_work><next_step>ORIGINAL STEP</next_step></state_snapshot>"


@pytest.fixture(autouse=True)
def no_editor_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)


def _session_with_a_big_result(workspace: Path) -> str:
    messages = [*exchange("build it", "Building."), *tool_exchange("call_b", "run_shell_command", {"command": "make"}, BIG)]
    messages += exchange("and?", "It built.")[1:]
    return record_session(Paths.for_cwd(workspace), [exchange("build it", "Building.")[0], *messages[1:]]).stem


async def _open_pool(pilot, app, name: str) -> None:  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: any(b.name.startswith(name) for b in app.context_map.blocks), what=f"{name} on the map")
    index = next(i for i, row in enumerate(app.context_map.rows) if row.block.name.startswith(name))
    if not app.context_map.has_focus:
        await pilot.press("f2")
    await pilot.press("home", *["down"] * index, "right")
    assert app.context_map.selected_row.part is not None, "→ moves onto the pool's first part"


def _view_edits(app) -> list[dict]:  # type: ignore[no-untyped-def]
    return [r["systemPayload"] for r in record_lines(app) if r.get("subtype") == "view_edit"]


async def test_d_drops_the_part_the_gauge_moves_and_r_restores_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    session = _session_with_a_big_result(workspace)
    app = make_app(fake_llm, workspace, resume=session)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await _open_pool(pilot, app, "tool results")
        part = app.context_map.selected_row.part
        assert part.part_id.startswith("tool-") and any(line.startswith(f"▶  └ {part.part_id} · ") for line in map_lines(app))
        before = app.context_map.used
        await pilot.press("d")
        await wait_until(pilot, lambda: _view_edits(app), what="drop recorded")
        assert _view_edits(app) == [{"action": "drop", "part": part.part_id}]
        dropped = app.gauge.tokens
        assert app.context_map.used < before - 2_000 and 0 < dropped < before - 2_000, "the map and the gauge move at once"
        assert any(f"└ ✕ {part.part_id} · " in line for line in map_lines(app))
        assert any("tool results (1, 1 dropped)" in line for line in map_lines(app))
        assert notifications(app)[-1].startswith(f"Dropped {part.part_id} (run_shell_command result) from the view")
        assert app.context_map.selected_row.part.part_id == part.part_id, "the selection stays on the part"

        await pilot.press("r")
        await wait_until(pilot, lambda: len(_view_edits(app)) == 2, what="restore recorded")
        assert _view_edits(app)[1] == {"action": "restore", "part": part.part_id}
        assert app.context_map.used == before and app.gauge.tokens > dropped + 2_000
        assert not any("✕" in line for line in map_lines(app))

        fake_llm.push(Reply.text("Sure."))
        await pilot.press("escape")  # back to the prompt
        await send(pilot, "go on")
        assert "BIGLINE" in json.dumps(fake_llm.requests[-1].conversation), "restored: sent again"


async def test_p_pins_and_unpins_and_a_system_block_is_not_editable(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    session = _session_with_a_big_result(workspace)
    app = make_app(fake_llm, workspace, resume=session)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await _open_pool(pilot, app, "tool results")
        part = app.context_map.selected_row.part
        await pilot.press("p")
        await wait_until(pilot, lambda: _view_edits(app), what="pin recorded")
        assert any(f"└ ◆ {part.part_id} · " in line for line in map_lines(app))
        assert "survives compaction" in notifications(app)[-1]
        await pilot.press("p")
        await wait_until(pilot, lambda: len(_view_edits(app)) == 2, what="unpin recorded")
        assert _view_edits(app) == [{"action": "pin", "part": part.part_id}, {"action": "unpin", "part": part.part_id}]
        await pilot.press("left", "home", "d")
        await wait_until(pilot, lambda: notifications(app, "warning"), what="refused")
        assert notifications(app, "warning")[-1].startswith("Only a part of the conversation can be edited")
        assert len(_view_edits(app)) == 2, "nothing recorded for the system prompt"


async def test_a_drop_inside_the_cached_prefix_says_what_it_costs_and_asks(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    session = _session_with_a_big_result(workspace)
    usage = {"prompt_tokens": 9_000, "completion_tokens": 3, "total_tokens": 9_003, "prompt_tokens_details": {"cached_tokens": 8_500}}
    fake_llm.push(Reply.sse(Reply.chunk({"role": "assistant", "content": "Noted."}), Reply.chunk({}, "stop"), {**Reply.chunk(), "choices": [], "usage": usage}))
    app = make_app(fake_llm, workspace, resume=session)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await send(pilot, "thanks")
        assembler = app.runtime.assembler
        assert assembler.last_usage.cached_tokens == 8_500
        await _open_pool(pilot, app, "tool results")
        part = app.context_map.selected_row.part
        lost = cache_loss(assembler.last_request.parts, 8_500, part.part_id)
        assert lost > 0
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="asked first")
        assert f"{format_tokens(lost)} cached tokens will be sent afresh" in app.screen.question
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="declined")
        assert _view_edits(app) == [], "declined: nothing dropped"
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="asked again")
        await pilot.press("y")
        await wait_until(pilot, lambda: _view_edits(app), what="dropped")
        assert f"The next request re-sends {format_tokens(lost)} cached tokens." in notifications(app)[-1]


def _fake_editor(tmp_path: Path, text: str) -> Path:
    script = tmp_path / "fake-editor"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' '{text}' > \"$1\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


async def test_enter_reads_the_summary_and_e_rewrites_it_for_the_next_request(
    fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.history import Message

    summary = Message.user(SUMMARY)
    session = record_session(Paths.for_cwd(workspace), [summary, Message(role="assistant", content="Got it."), *exchange("next?", "The lexer.")]).stem
    edited = "<state_snapshot><next_step>HAND WRITTEN STEP</next_step></state_snapshot>"
    monkeypatch.setenv("EDITOR", str(_fake_editor(tmp_path, edited)))
    app = make_app(fake_llm, workspace, resume=session)
    async with app.run_test(size=WIDE) as pilot:
        app.suspend = contextlib.nullcontext  # type: ignore[method-assign]  # the headless driver cannot give the terminal away
        await ready(pilot)
        await wait_until(pilot, lambda: any(b.name.startswith("summaries") for b in app.context_map.blocks), what="summary on the map")
        index = next(i for i, row in enumerate(app.context_map.rows) if row.block.name.startswith("summaries"))
        await pilot.press("f2", *["down"] * index, "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="summary read")
        assert "ORIGINAL STEP" in text_screen(app).body
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, TextScreen), what="closed")
        await pilot.press("e")
        await wait_until(pilot, lambda: _view_edits(app), what="rewrite recorded")
        assert _view_edits(app) == [{"action": "replace", "part": part_id(summary), "text": edited + "\n"}]
        assert any("summaries (1, 1 edited)" in line for line in map_lines(app))
        fake_llm.push(Reply.text("On it."))
        await pilot.press("escape")
        await send(pilot, "go")
        sent = json.dumps(fake_llm.requests[-1].conversation)
        assert "HAND WRITTEN STEP" in sent and "ORIGINAL STEP" not in sent


async def test_e_on_anything_but_a_summary_is_refused(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    session = _session_with_a_big_result(workspace)
    app = make_app(fake_llm, workspace, resume=session)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await _open_pool(pilot, app, "tool results")
        await pilot.press("e")
        await wait_until(pilot, lambda: notifications(app, "warning"), what="refused")
        assert notifications(app, "warning")[-1].startswith("Only a compaction summary can be rewritten")
        assert _view_edits(app) == []


async def test_shift_d_drops_the_whole_turn_a_typed_message_starts(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    from app.core.history import Message

    old = [Message.user("build it"), *tool_exchange("call_b", "run_shell_command", {"command": "make"}, BIG), Message(role="assistant", content="Built.")]
    session = record_session(Paths.for_cwd(workspace), [*old, *exchange("now test it", "Tests pass.")]).stem
    app = make_app(fake_llm, workspace, resume=session)
    async with app.run_test(size=WIDE) as pilot:
        await ready(pilot)
        await _open_pool(pilot, app, "user messages")
        assert app.context_map.selected_row.part.part_id == part_id(old[0])
        await pilot.press("D")
        await wait_until(pilot, lambda: len(_view_edits(app)) == 4, what="the turn dropped")
        assert [e["part"] for e in _view_edits(app)] == [part_id(m) for m in old]
        assert notifications(app)[-1].startswith(f"Dropped the turn from {part_id(old[0])}: 4 parts")
        fake_llm.push(Reply.text("ok"))
        await pilot.press("escape")
        await send(pilot, "and deploy?")
        sent = json.dumps(fake_llm.requests[-1].conversation)
        assert "BIGLINE" not in sent and "build it" not in sent and "now test it" in sent and "Tests pass." in sent
        # D on anything but a message the person typed is refused.
        await _open_pool(pilot, app, "tool results")
        await pilot.press("D")
        await wait_until(pilot, lambda: notifications(app, "warning"), what="refused")
        assert notifications(app, "warning")[-1].startswith("D drops a whole turn")
