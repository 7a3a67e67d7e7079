"""Rules of compaction that need no model: analysis stripping, result checks, history shape,
micro-compaction triggers and keep counts, pruning, tool-pair repair, quality identifiers."""

from __future__ import annotations

from pathlib import Path

from app.context.compaction.attachments import collect_attachments, recent_file_paths
from app.context.compaction.compose import ACKNOWLEDGEMENT, RESUME_TRAILER, compose_history, live_tail_start
from app.context.compaction.micro import CLEARED, MicroSettings, micro_compact
from app.context.compaction.pairing import MISSING_RESULT, repair_tool_pairs
from app.context.compaction.pruning import PLACEHOLDER, prune_view
from app.context.compaction.quality import identifiers_in, missing_identifiers, missing_sections
from app.context.compaction.summary import (
    CompressionStatus,
    SummaryOutcome,
    compression_system_prompt,
    judge,
    sanitize_hook_text,
    strip_analysis_block,
)
from app.core.history import Message, ToolCall


def _call(call_id: str, name: str = "read_file", args: str = '{"path": "a.py"}') -> ToolCall:
    return ToolCall(call_id, name, args)


def _round(call_id: str, output: str, name: str = "read_file", *, error: bool = False, args: str = '{"path": "a.py"}') -> list[Message]:
    call = _call(call_id, name, args)
    return [Message(role="assistant", content="", tool_calls=[call]), Message.tool_result(call, output, is_error=error)]


# -- the summary ------------------------------------------------------------------------------


def test_strip_analysis_closed_unclosed_and_several() -> None:
    assert strip_analysis_block("<analysis>x</analysis>\n<state_snapshot>s</state_snapshot>") == "<state_snapshot>s</state_snapshot>"
    assert strip_analysis_block("<analysis>a</analysis> keep <analysis>b</analysis>  end") == "keep end"
    assert strip_analysis_block("summary\n<analysis>never closed ...") == "summary"
    assert strip_analysis_block("  <analysis>only</analysis>  ") == ""


def test_result_checks_in_order() -> None:
    assert judge(SummaryOutcome(CompressionStatus.COMPRESSED, raw="")).status is CompressionStatus.COMPRESSION_FAILED_EMPTY_SUMMARY
    analysis_only = judge(SummaryOutcome(CompressionStatus.COMPRESSED, raw="<analysis>thinking</analysis>"))
    assert analysis_only.status is CompressionStatus.COMPRESSION_FAILED_EMPTY_SUMMARY
    cut = judge(SummaryOutcome(CompressionStatus.COMPRESSED, raw="<state_snapshot>a", finish_reason="length"))
    assert cut.status is CompressionStatus.COMPRESSION_FAILED_OUTPUT_TRUNCATED
    big = judge(SummaryOutcome(CompressionStatus.COMPRESSED, raw="s", output_tokens=20_000))
    assert big.status is CompressionStatus.COMPRESSION_FAILED_OUTPUT_TRUNCATED
    fine = judge(SummaryOutcome(CompressionStatus.COMPRESSED, raw="<analysis>x</analysis>summary text"))
    assert fine.status is CompressionStatus.COMPRESSED and fine.summary == "summary text" and fine.output_tokens > 0


def test_prompt_has_focus_first_then_hook_text_sanitized() -> None:
    prompt = compression_system_prompt("  keep the API names  ", "<b>hook</b>")
    tail = prompt.split("\n\nAdditional Instructions:\n", 1)[1]
    assert tail == "keep the API names\n\n&lt;b&gt;hook&lt;/b&gt;"
    assert "Additional Instructions" not in compression_system_prompt()
    assert len(sanitize_hook_text("x" * 9000)) == 4000
    assert compression_system_prompt("f" * 5000).endswith("f" * 2000)
    for section in ("primary_request_and_intent", "all_user_messages", "pending_tasks", "current_work", "next_step"):
        assert f"<{section}>" in compression_system_prompt()


# -- the new history ----------------------------------------------------------------------------


def test_composed_history_alternates_and_keeps_the_live_request() -> None:
    tail = [Message.user("now fix the bug in parser.py"), *_round("c9", "def parse(): ...")]
    messages = compose_history("<state_snapshot>…</state_snapshot>", tail, "Recently accessed file …")
    roles = [m.role for m in messages]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant", "tool"]
    assert messages[0].content.endswith("\n\n" + RESUME_TRAILER)
    assert messages[1].content == ACKNOWLEDGEMENT
    assert messages[4].content == "now fix the bug in parser.py"
    assert [m.role for m in compose_history("s", [])] == ["user", "assistant"]
    assert compose_history("   ", [])[0].content.startswith("[Summary unavailable]")


def test_live_tail_starts_at_the_request_of_an_unfinished_turn() -> None:
    finished = [Message.user("a"), Message(role="assistant", content="done")]
    assert live_tail_start(finished) == 2
    in_flight = [*finished, Message.user("b"), *_round("c1", "out")]
    assert live_tail_start(in_flight) == 2
    with_reminder = [*finished, Message.user("real ask"), Message.user("<system-reminder>x</system-reminder>")]
    assert live_tail_start(with_reminder) == 2


def test_attachments_embed_recent_files_and_list_large_ones(tmp_path: Path) -> None:
    (tmp_path / "small.py").write_text("print('```')\n", encoding="utf-8")
    (tmp_path / "big.txt").write_text("x" * 30_000, encoding="utf-8")
    history = [
        *_round("c1", "ok", args='{"path": "big.txt"}'),
        *_round("c2", "ok", args='{"path": "small.py"}'),
        *_round("c3", "boom", args='{"path": "broken.py"}', error=True),
        *_round("c4", "ok", args='{"path": "/etc/passwd"}'),
    ]
    paths = recent_file_paths(history, tmp_path)
    assert [p.name for p in paths] == ["small.py", "big.txt"], "newest first; errors and outside paths skipped"
    text = collect_attachments(history, tmp_path, skill_bodies=["# skill review"]).text()
    assert "## small.py\n\n````\nprint('```')\n\n````" in text, "the fence is longer than any backtick run"
    assert "- big.txt" in text and "reference only" in text
    assert "# skill review" in text


# -- micro-compaction --------------------------------------------------------------------------


def _tool_history(count: int, size: int = 100) -> list[Message]:
    history = [Message.user("go")]
    for i in range(count):
        history += _round(f"c{i}", f"{i}" * size)
    history.append(Message(role="assistant", content="done"))
    return history


def test_no_trigger_returns_the_same_object() -> None:
    history = _tool_history(8)
    result = micro_compact(history, MicroSettings(), now=1000.0, last_response_at=999.0)
    assert result.messages is history and not result.changed


def test_force_keeps_the_newest_per_keep_count_and_never_errors() -> None:
    history = _tool_history(8)
    history.insert(3, Message.tool_result(_call("bad"), "error text", is_error=True))
    result = micro_compact(history, MicroSettings(keep_recent=3), force=True)
    cleared = [m for m in result.messages if m.role == "tool" and m.content == CLEARED]
    assert result.trigger == "force" and len(cleared) == 5 and result.kept == 3
    assert any(m.content == "error text" for m in result.messages)
    assert [m.content for m in result.messages if m.role == "tool" and m.tool_call_id in ("c5", "c6", "c7")] == ["5" * 100, "6" * 100, "7" * 100]
    assert result.tokens_saved > 0
    assert history[2].content == "0" * 100, "the input list is not modified"


def test_keep_count_is_at_least_one() -> None:
    result = micro_compact(_tool_history(3), MicroSettings(keep_recent=0), force=True)
    assert result.kept == 1


def test_idle_trigger_and_its_gap() -> None:
    history = _tool_history(8)
    settings = MicroSettings(idle_minutes=60)
    assert micro_compact(history, settings, now=3599.0, last_response_at=0.0).trigger is None
    result = micro_compact(history, settings, now=3600.0 * 2, last_response_at=0.0)
    assert result.trigger == "idle" and result.gap_minutes == 120
    assert micro_compact(history, MicroSettings(idle_minutes=-1), now=10**9, last_response_at=0.0).trigger is None
    assert micro_compact(history, settings, now=10**9, last_response_at=None).trigger is None


def test_size_trigger_clears_oldest_down_to_half_and_spares_pending_results() -> None:
    history = _tool_history(10, size=1000)[:-1]  # the last round is pending: no assistant after it
    settings = MicroSettings(keep_recent=1, size_chars=5000, idle_minutes=-1)
    result = micro_compact(history, settings)
    assert result.trigger == "size"
    remaining = sum(len(m.content) for m in result.messages if m.role == "tool" and m.content != CLEARED)
    assert remaining <= 2500 + 1000  # down to the low watermark, the pending result aside
    assert result.messages[-1].content == "9" * 1000, "the pending result is never cleared"
    assert result.messages[2].content == CLEARED, "oldest first"


def test_non_compactable_tools_are_never_touched() -> None:
    history = [Message.user("x"), *_round("c1", "listing", name="list_directory"), *_round("c2", "a" * 50, name="read_file"), Message(role="assistant", content="ok")]
    result = micro_compact(history, MicroSettings(keep_recent=1), force=True)
    assert result.messages[2].content == "listing"


# -- pruning (view only) ------------------------------------------------------------------------


def test_pruning_trims_then_clears_old_results_and_protects_the_recent_ones() -> None:
    history = [Message.user("start")]
    for i in range(8):
        history += _round(f"c{i}", "y" * 20_000)
        history.append(Message(role="assistant", content=f"step {i}"))
    result = prune_view(history, context_window_tokens=40_000)
    assert result.changed and result.trimmed > 0
    protected = result.messages[-4:]  # from the third-from-last assistant message on
    assert all(m.content == "y" * 20_000 for m in protected if m.role == "tool")
    assert any("[Tool result trimmed: kept first 1500 chars and last 1500 chars of 20000 chars.]" in m.content for m in result.messages)
    assert history[2].content == "y" * 20_000
    assert prune_view(history, context_window_tokens=10_000_000).messages is history


def test_pruning_hard_clears_when_still_too_full() -> None:
    history = [Message.user("start")]
    for i in range(40):
        history += _round(f"c{i}", "z" * 30_000)
        history.append(Message(role="assistant", content="ok"))
    result = prune_view(history, context_window_tokens=20_000)
    assert result.cleared > 0 and any(m.content == PLACEHOLDER for m in result.messages)


# -- pairing --------------------------------------------------------------------------------------


def test_orphans_dropped_and_missing_results_synthesized_in_place() -> None:
    orphan = Message.tool_result(_call("ghost"), "who am I")
    call_a, call_b = _call("a"), _call("b")
    history = [
        Message.user("q"),
        orphan,
        Message(role="assistant", content="", tool_calls=[call_a, call_b]),
        Message.tool_result(call_a, "ok"),
        Message.user("next"),
    ]
    result = repair_tool_pairs(history)
    assert result.dropped_orphans == 1 and result.added_results == 1
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "tool", "user"]
    assert result.messages[3].tool_call_id == "b" and result.messages[3].content == MISSING_RESULT
    clean = [Message.user("q"), *_round("c", "r")]
    assert repair_tool_pairs(clean).messages is clean


# -- quality --------------------------------------------------------------------------------------


def test_identifiers_and_sections() -> None:
    text = "Rename `parse_config` in src/app/config.py to loadSettings; see https://x.io/a and commit 3f9a2b1c."
    found = identifiers_in(text)
    for expected in ("parse_config", "src/app/config.py", "loadSettings", "https://x.io/a", "3f9a2b1c"):
        assert expected in found
    assert missing_identifiers("we changed parse_config", ["parse_config", "loadSettings"]) == ["loadSettings"]
    assert missing_sections("<all_user_messages>a</all_user_messages><pending_tasks>") == ["current_work", "next_step"]


def test_a_dangling_tool_call_stays_last_and_gets_its_result_so_roles_stay_valid() -> None:
    dangling = Message(role="assistant", content="", tool_calls=[_call("c7")])
    tail = [Message.user("run the tests"), dangling]
    messages = repair_tool_pairs(compose_history("<state_snapshot>s</state_snapshot>", tail, "attachments")).messages
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant", "user", "assistant", "tool"]
    assert messages[-2] is dangling and messages[-1].tool_call_id == "c7" and messages[-1].content == MISSING_RESULT
