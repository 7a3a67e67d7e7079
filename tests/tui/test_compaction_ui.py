"""The gauge at each band, the warn notice, the skippable auto-compaction countdown, /compress and /compress-fast."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from app.context.compaction.summary import FINAL_INSTRUCTION
from app.core.history import Message
from app.paths import Paths
from app.tui.widgets.gauge import BudgetGauge
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    make_app,
    make_settings,
    notifications,
    ready,
    record_session,
    rendered_text,
    send,
    tool_exchange,
    wait_turn_done,
    wait_until,
)

SUMMARY = (
    "<analysis>a</analysis><state_snapshot><all_user_messages>q</all_user_messages><pending_tasks>none</pending_tasks>"
    "<current_work>w</current_work><next_step>n</next_step></state_snapshot>"
)


class GaugeHost(App[None]):
    """The gauge alone, at one token count per line."""

    def __init__(self, counts: list[int]) -> None:
        super().__init__()
        self.counts = counts

    def compose(self) -> ComposeResult:
        for count in self.counts:
            gauge = BudgetGauge()
            gauge.set_usage(count, 32_000, source="reported")
            yield gauge


BANDS = [(2_000, "ok"), (20_000, "warn"), (23_000, "auto"), (26_000, "hard")]


async def test_gauge_bands_and_text() -> None:
    app = GaugeHost([count for count, _ in BANDS])
    async with app.run_test(size=(100, 6)):
        gauges = list(app.query(BudgetGauge))
        assert [g.band for g in gauges] == [band for _, band in BANDS]
        assert rendered_text(gauges[0]).endswith("2k / 32k · Context left 94% (reported)")
        assert "Context left 19%" in rendered_text(gauges[3])
        assert rendered_text(gauges[0]).count("│") == 1 and rendered_text(gauges[0]).count("┃") == 1


async def test_the_gauge_says_which_thresholds_are_in_force_and_where_they_came_from() -> None:
    app = GaugeHost([20_000, 20_000])
    async with app.run_test(size=(100, 6)) as pilot:
        default, explicit = list(app.query(BudgetGauge))
        explicit.pct, explicit.origin = 0.5, "~/.config/agentctx/settings.yaml"
        await pilot.pause()
        rendered_text(default), rendered_text(explicit)  # the tooltip is set as the gauge draws
        assert default.tooltip == (
            "warn 19,200 · auto-compact 22,400 · hard 25,400 tokens (the default formula: auto at max(70% of the window, window - 33,000))"
        )
        assert explicit.tooltip == "warn 12,800 · auto-compact 16,000 · hard 19,000 tokens (compaction.pct 0.5 from ~/.config/agentctx/settings.yaml)"
        assert (default.band, explicit.band) == ("warn", "hard")


def test_gauge_snapshot_at_each_band(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(GaugeHost([count for count, _ in BANDS]), terminal_size=(100, 6))


def _big_history(answers: int) -> list[Message]:
    history: list[Message] = []
    for i in range(answers):
        history += [Message.user(f"question {i}"), Message(role="assistant", content="w" * 4000)]
    return history


def _resume_app(server: FakeOpenAIServer, workspace: Path, answers: int, **compaction: object):  # type: ignore[no-untyped-def]
    path = record_session(Paths.for_cwd(workspace), _big_history(answers))
    settings = make_settings(server)
    for key, value in compaction.items():
        setattr(settings.compaction, key, value)
    return make_app(server, workspace, settings=settings, resume=path.stem)


async def test_crossing_warn_shows_a_notice_with_the_key_to_compact(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    app = _resume_app(fake_llm, workspace, 17)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "one more")
        warnings = [n for n in notifications(app, "warning") if "before auto-compaction" in n]
        assert warnings and "F3 compacts now" in warnings[0]
        assert app.gauge.band == "warn"
        assert len(fake_llm.requests) == 1, "warn does not compact"


async def test_esc_during_the_countdown_skips_auto_compaction(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("answered without compacting"))
    app = _resume_app(fake_llm, workspace, 20, auto_delay_seconds=30.0)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "next", wait=False)
        await wait_until(pilot, lambda: app.compaction.pending is not None, what="the countdown")
        assert any("Auto-compaction starts in 30 s" in n for n in notifications(app, "warning"))
        await pilot.press("escape")
        await wait_turn_done(pilot)
        assert len(fake_llm.requests) == 1 and fake_llm.requests[0].body["messages"][-1]["content"] != FINAL_INSTRUCTION, "no summarizer request"
        assert app.runtime.agent.history[-1].content == "answered without compacting"
        assert any("skipped" in n for n in notifications(app))


async def test_the_status_line_counts_the_countdown_down(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("answered without compacting"))
    app = _resume_app(fake_llm, workspace, 20, auto_delay_seconds=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "next", wait=False)
        await wait_until(pilot, lambda: app.compaction.pending is not None, what="the countdown")
        assert app.status.state in ("auto-compaction in 3 s (Esc skips)", "auto-compaction in 2 s (Esc skips)")
        await wait_until(pilot, lambda: app.status.state == "auto-compaction in 1 s (Esc skips)", what="a second later", max_iters=5000)
        await pilot.press("escape")
        await wait_turn_done(pilot)
        assert app.status.state == "idle"


async def test_auto_compaction_runs_after_the_countdown(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text(SUMMARY), Reply.text("done"))
    app = _resume_app(fake_llm, workspace, 20, auto_delay_seconds=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "next")
        summarizer = fake_llm.requests[0].body
        assert summarizer["messages"][-1]["content"] == FINAL_INSTRUCTION
        assert summarizer["max_tokens"] == 9_380, "20,000, capped by what the 32k window leaves after the history"
        assert any("Context compressed" in n for n in notifications(app))
        assert app.gauge.band == "ok"


@pytest.mark.parametrize("how", ["command", "key"])
async def test_compress_now_with_focus_or_f3(fake_llm: FakeOpenAIServer, workspace: Path, how: str) -> None:
    fake_llm.push(Reply.text(SUMMARY))
    app = _resume_app(fake_llm, workspace, 3)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        if how == "command":
            app.prompt.load_text("/compress keep the parser details")
            await pilot.press("enter")
        else:
            await pilot.press("f3")
        await wait_until(pilot, lambda: any("Context compressed" in n for n in notifications(app)), what="compaction")
        system = fake_llm.requests[0].messages[0]["content"]
        assert ("Additional Instructions:\nkeep the parser details" in system) is (how == "command")
        texts = [rendered_text(w) for w in app.conversation.query(".compaction")]
        assert texts and "tokens, manual)" in texts[0]


async def test_compress_fast(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    paths = Paths.for_cwd(workspace)
    messages = [Message.user("read them")]
    for i in range(8):
        messages += tool_exchange(f"c{i}", "read_file", {"path": "README.md"}, "content " * 100)
    messages.append(Message(role="assistant", content="read"))
    path = record_session(paths, messages)
    app = make_app(fake_llm, workspace, resume=path.stem)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.load_text("/compress-fast")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Cleared 3 old tool result" in n for n in notifications(app)), what="clearing")
        [note] = [n for n in notifications(app) if "Cleared 3" in n]
        before, after = (int(x.replace(",", "")) for x in re.search(r"([\d,]+) -> ([\d,]+) tokens", note).groups())
        assert after < before and app.gauge.tokens == after and app.gauge.source == "estimate"
        app.prompt.load_text("/compress-fast")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "No compression needed." in notifications(app), what="nothing left")
        assert not fake_llm.requests, "no model call"
