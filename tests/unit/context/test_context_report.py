"""The context report from an assembled request: totals by source, statuses, renderers, persistence."""

from __future__ import annotations

import json
from pathlib import Path

from app.context.report import ContextReport, Row, build_report, load_report, render_detail, render_json, render_list, render_map, save_report
from app.core.request import MESSAGES, SYSTEM, AssembledRequest, RequestPart, message_parts, tool_schema_parts
from app.core.history import Message, ToolCall, Usage


def _request() -> AssembledRequest:
    history = [
        Message.user("read a.py"),
        Message(role="assistant", content="", tool_calls=[ToolCall("c1", "read_file", '{"path": "a.py"}')]),
        Message.tool_result(ToolCall("c1", "read_file"), "x = 1\n" * 50),
        Message(role="assistant", content="It sets x."),
    ]
    tools = [
        {"type": "function", "function": {"name": "read_file", "description": "Read.", "parameters": {"type": "object", "properties": {"path": {}, "offset": {}}}}},
        {"type": "function", "function": {"name": "glob", "description": "Find.", "parameters": {"type": "object", "properties": {"pattern": {}}}}},
    ]
    parts = [
        RequestPart(block=SYSTEM, kind="section", name="base prompt", source="templates/base.md", text="B" * 400),
        RequestPart(block=SYSTEM, kind="separator", name="separator", source="suffix rule", text="\n\n---\n\n"),
        RequestPart(block=SYSTEM, kind="instruction_file", name="QWEN.md", source="/r/QWEN.md", text="Q" * 80, status="OK"),
        *tool_schema_parts(tools),
        *message_parts(history),
    ]
    for part in parts:
        part.tokens = max(1, len(part.text) // 4)
    return AssembledRequest(parts=parts, messages=history, tools=tools, model="m", context_window=32_000, created_at=0)


def _rows() -> list[Row]:
    return [
        Row(name="QWEN.md", tokens=20, chars=80, status="OK", raw_chars=80),
        Row(name="sub/AGENTS.md", tokens=5000, chars=20_000, status="TRUNCATED", raw_chars=50_000),
        Row(name="AGENTS.md", tokens=0, chars=0, status="MISSING"),
    ]


def test_groups_add_up_to_the_request() -> None:
    request = _request()
    report = build_report(request, source="run", session_id="s1", usage=Usage(prompt_tokens=900))
    groups = {g.name: g for g in report.groups}
    assert sum(g.tokens for g in report.groups) == request.total_tokens
    assert groups["System prompt"].tokens == 100 + 1
    assert groups["Instruction files"].tokens == 20
    assert groups["Tool schemas"].detail == "2"
    assert groups["Tool results"].tokens == request.parts_of("tool_result")[0].tokens
    assert report.used_tokens == 900 and report.free_tokens == 31_100
    assert (report.warn, report.auto, report.hard) == (19_200, 22_400, 25_400)


def test_list_shows_window_thresholds_statuses_and_gap() -> None:
    report = build_report(_request(), source="run", session_id="s1", usage=Usage(prompt_tokens=900), instruction_rows=_rows(), per_file_cap=20_000, total_cap=60_000)
    text = render_list(report)
    assert "last request sent" in text
    assert "Window 32,000 · used 900" in text
    assert "warn 19,200 · auto-compact 22,400 · hard 25,400" in text
    assert f"Server reported 900 prompt tokens; tracked {report.tracked_tokens:,}" in text
    assert "sub/AGENTS.md" in text and "TRUNCATED" in text and "raw 50,000 chars · injected 20,000 chars" in text
    assert "AGENTS.md                          MISSING" in text
    assert "1 file truncated (50,000 raw chars -> 20,000 injected chars)" in text
    assert "Tool schemas: 2 tools" in text


def test_estimate_is_labelled_and_calibrated() -> None:
    report = build_report(_request(), source="estimate", session_id="", calibration_ratio=1.5)
    text = render_list(report)
    assert "assembled now, not sent" in text
    assert report.used_tokens == round(report.tracked_tokens * 1.5)
    assert "calibrated ×1.50" in text


def test_detail_adds_top_tools_and_the_gap() -> None:
    report = build_report(_request(), source="run", session_id="s1", usage=Usage(prompt_tokens=2000))
    text = render_detail(report)
    assert "Top tools by schema size:" in text
    assert text.index("read_file") < text.index("glob", text.index("Top tools"))
    assert "2 params" in text
    assert f"Untracked overhead (chat template, tool formatting): ~{2000 - report.tracked_tokens:+,} tok" in text


def test_map_draws_the_window_with_threshold_marks() -> None:
    text = render_map(build_report(_request(), source="run", session_id="s1"), width=40)
    bar = next(line for line in text.splitlines() if line.startswith("["))
    marks = text.splitlines()[text.splitlines().index(bar) + 1]
    assert len(bar) == 42
    assert [c for c in marks if c.strip()] == ["w", "a", "h"]
    assert "Free" in text


def test_json_round_trips_and_files_persist(tmp_path: Path) -> None:
    report = build_report(_request(), source="run", session_id="abc", instruction_rows=_rows(), problems=["QWEN.md is not UTF-8"])
    data = json.loads(render_json(report))
    assert data["used_tokens"] == report.used_tokens and data["instruction_files"][1]["status"] == "TRUNCATED"
    assert ContextReport.from_json(data) == report
    save_report(report, tmp_path)
    assert load_report(tmp_path, "abc") == report
    assert load_report(tmp_path, "missing") is None
    (tmp_path / "bad.context.json").write_text("{not json", encoding="utf-8")
    assert load_report(tmp_path, "bad") is None


def test_the_report_uses_the_configured_compaction_fraction_like_the_gauge(tmp_path: Path) -> None:
    from app.config import Settings
    from app.context.assembler import ContextAssembler
    from app.context.compaction.thresholds import compute_thresholds
    from app.core.tokens import TokenCounter
    from app.paths import Paths

    settings = Settings()
    settings.compaction.pct = 0.5
    paths = Paths(cwd=tmp_path, config_dir=tmp_path / "config", data_dir=tmp_path / "data")
    assembler = ContextAssembler(paths=paths, settings=settings, model="m", context_window=32_000, counter=TokenCounter("m"))
    report = assembler.report(assembler.assemble([Message.user("hi")], []), source="estimate")
    expected = compute_thresholds(32_000, 0.5)
    assert (report.warn, report.auto, report.hard) == (expected.warn, expected.auto, expected.hard)
    assert report.auto != compute_thresholds(32_000).auto


def test_detail_names_each_skill_entry_and_each_recalled_memory() -> None:
    from app.context.skills.listing import snapshot_reminder
    from app.context.skills.model import Skill, SkillLevel

    skills = [Skill(name=n, description=f"{n} things", level=SkillLevel.BUNDLED, path=Path(f"/s/{n}/SKILL.md")) for n in ("review", "stuck")]
    listing = snapshot_reminder(skills)
    recalled = (
        "<system-reminder>\n## Relevant memory\n\n### DB tests (feedback/db-tests.md)\nSaved today.\n\nUse the real database.\n\n"
        "### Role (user/role.md)\nSaved today.\n\nBackend engineer.\n</system-reminder>"
    )
    parts = [
        RequestPart(block=MESSAGES, kind="skills_listing", name="skills snapshot", source="available skills", text=listing),
        RequestPart(block=MESSAGES, kind="recalled_memory", name="recalled_memory", source="message 3", text=recalled),
    ]
    for part in parts:
        part.tokens = len(part.text) // 4
    request = AssembledRequest(parts=parts, messages=[], tools=[], model="m", context_window=32_000, created_at=0)
    report = build_report(request, source="estimate", session_id="")
    assert [r.name for r in report.skills] == ["review", "stuck"]
    assert all(0 < r.tokens < parts[0].tokens for r in report.skills) and sum(r.tokens for r in report.skills) <= parts[0].tokens
    assert [(r.name, r.source) for r in report.memories] == [("DB tests", "feedback/db-tests.md"), ("Role", "user/role.md")]
    detail = render_detail(report)
    assert "review" in detail and "feedback/db-tests.md" in detail
