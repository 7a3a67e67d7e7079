"""The context report: what the last request held, by source (list / detail / map / json).

Built from an AssembledRequest (``source="run"`` for a request that was sent,
``"estimate"`` for one assembled on the spot), saved next to the session record
after every request so the command line can show it without the TUI.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, field
from app.dataclass import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from app.context.compaction.thresholds import compute_thresholds
from app.core.request import GROUP_ORDER, AssembledRequest, RequestPart, tool_server
from app.core.history import Usage
from app.core.session.delete import CONTEXT_SIDECAR_SUFFIX
from app.fsutil import atomic_write_text
from app.core.tools.text import plural

REPORT_VERSION = 1


@dataclass
class Row:
    """One named thing in the request and its weight."""

    name: str
    tokens: int
    chars: int
    source: str = ""
    status: str = ""
    raw_chars: int = 0
    detail: str = ""


@dataclass
class ContextReport:
    """What one request held, by source: what every view of the report (list, detail, map, json) is drawn from."""

    source: str  # run | estimate
    generated_at: str
    session_id: str
    model: str
    context_window: int
    token_method: str  # exact | estimate
    tracked_tokens: int  # sum of our counts of every part
    reported_prompt_tokens: int | None  # what the server said this request cost
    warn: float
    auto: float
    hard: float
    thresholds_source: str = ""
    groups: list[Row] = field(default_factory=list)
    system_sections: list[Row] = field(default_factory=list)
    instruction_files: list[Row] = field(default_factory=list)
    tools: list[Row] = field(default_factory=list)
    # Tool schemas by where they come from: built-in, each MCP server, the deferred listing.
    tool_sources: list[Row] = field(default_factory=list)
    skills: list[Row] = field(default_factory=list)
    memories: list[Row] = field(default_factory=list)
    messages: list[Row] = field(default_factory=list)  # by role: user / assistant / tool results / summaries / reminders
    # Parts the person pinned, dropped or rewrote (name: part id, source: what it is, detail: the edit).
    edited: list[Row] = field(default_factory=list)
    per_file_cap: int = 0
    total_cap: int = 0
    problems: list[str] = field(default_factory=list)
    calibration_ratio: float = 1.0  # server-reported / tracked, from the last answered request
    version: int = REPORT_VERSION

    @property
    def calibrated_tokens(self) -> int:
        return round(self.tracked_tokens * self.calibration_ratio)

    @property
    def used_tokens(self) -> int:
        """The server's figure when there is one (the truth thresholds act on), else our calibrated count."""
        return self.reported_prompt_tokens or self.calibrated_tokens

    @property
    def free_tokens(self) -> int:
        return max(0, self.context_window - self.used_tokens)

    @property
    def truncated_files(self) -> list[Row]:
        return [r for r in self.instruction_files if r.status == "TRUNCATED"]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["used_tokens"] = self.used_tokens
        data["free_tokens"] = self.free_tokens
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ContextReport:
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in ("groups", "system_sections", "instruction_files", "tools", "tool_sources", "skills", "memories", "messages", "edited"):
            fields[key] = [Row(**row) for row in data.get(key, [])]
        return cls(**fields)


def _row(part: RequestPart, **extra: Any) -> Row:
    return Row(name=part.name, tokens=part.tokens, chars=part.chars, source=part.source, status=part.status, **extra)


# A skill's entry in a listing, and one recalled memory in a recall reminder (see skills/listing.py
# and memory/prompt.py for how they are written).
_SKILL_ENTRY = re.compile(r"<skill>\n<name>\n(?P<name>.*?)\n</name>.*?</skill>", re.DOTALL)
_RECALLED_BY = re.compile(r"^Recalled by (.+)\.$", re.MULTILINE)
_MEMORY_ENTRY = re.compile(r"^### (?P<name>.*?) \((?P<source>[^()\n]*)\)$.*?(?=^### |\Z)", re.DOTALL | re.MULTILINE)


def _entry_rows(parts: list[RequestPart], entry: re.Pattern[str]) -> list[Row]:
    """One row per entry inside ``parts``: its characters, and its share of the part's counted tokens."""
    rows: list[Row] = []
    for part in parts:
        for match in entry.finditer(part.text):
            chars = len(match.group(0))
            share = round(part.tokens * chars / part.chars) if part.chars else 0
            source = match.groupdict().get("source") or part.name
            how = _RECALLED_BY.search(part.text)  # a recall reminder says which path chose its memories
            detail = f"recalled by {how.group(1)}" if how else part.name
            rows.append(Row(name=match.group("name"), tokens=share, chars=chars, source=source, detail=detail))
    return rows


def _sum_rows(name: str, parts: list[RequestPart]) -> Row:
    return Row(name=name, tokens=sum(p.tokens for p in parts), chars=sum(p.chars for p in parts), detail=f"{len(parts)}")


def _edited_rows(parts: list[RequestPart]) -> list[Row]:
    seen: dict[str, Row] = {}
    for part in parts:
        if part.edit and part.part_id not in seen:
            seen[part.part_id] = Row(name=part.part_id, tokens=part.tokens, chars=part.chars, source=part.name, detail=part.edit)
    return list(seen.values())


def build_report(
    request: AssembledRequest,
    *,
    source: str,
    session_id: str,
    usage: Usage | None = None,
    compaction_pct: float | None = None,
    compaction_origin: str = "",
    instruction_rows: list[Row] | None = None,
    per_file_cap: int = 0,
    total_cap: int = 0,
    problems: list[str] | None = None,
    calibration_ratio: float = 1.0,
) -> ContextReport:
    thresholds = compute_thresholds(request.context_window, compaction_pct, origin=compaction_origin)
    groups = []
    for group in GROUP_ORDER:
        members = [p for p in request.parts if p.group == group]
        groups.append(_sum_rows(group, members))
    system = [_row(p) for p in request.parts if p.group == "System prompt" and p.text]
    files = instruction_rows if instruction_rows is not None else [_row(p) for p in request.parts_of("instruction_file", "rules")]
    tools = []
    for part in request.parts_of("tool_schema"):
        schema = json.loads(part.text)
        params = schema.get("function", {}).get("parameters", {}).get("properties", {})
        tools.append(_row(part, detail=f"{len(params)} param{'' if len(params) == 1 else 's'}"))
    by_source: dict[str, list[RequestPart]] = {}
    for part in request.parts_of("tool_schema"):
        by_source.setdefault(tool_server(part.name), []).append(part)
    tool_sources = [_sum_rows(name, parts) for name, parts in by_source.items()]
    by_kind: dict[str, list[RequestPart]] = {}
    for part in request.parts:
        if part.block == "messages" and part.kind != "skills_listing":  # the skills listing has its own line
            by_kind.setdefault(part.kind, []).append(part)
    labels = {"user": "user", "assistant": "assistant", "tool_result": "tool results", "summary": "summaries", "reminder": "reminders", "prelude": "session prelude"}
    messages = [_sum_rows(labels.get(kind, kind), parts) for kind, parts in by_kind.items()]
    return ContextReport(
        source=source,
        generated_at=datetime.fromtimestamp(request.created_at, timezone.utc).isoformat(timespec="seconds"),
        session_id=session_id,
        model=request.model,
        context_window=request.context_window,
        token_method=request.token_method,
        tracked_tokens=request.total_tokens,
        reported_prompt_tokens=usage.prompt_tokens if usage and usage.prompt_tokens else None,
        warn=thresholds.warn,
        auto=thresholds.auto,
        hard=thresholds.hard,
        thresholds_source=thresholds.source,
        groups=groups,
        system_sections=system,
        instruction_files=files,
        tools=tools,
        tool_sources=tool_sources,
        skills=_entry_rows(request.parts_of("skills_listing"), _SKILL_ENTRY),  # every entry of the snapshot and the deltas
        memories=[
            *(_row(p) for p in request.parts_of("memory_index")),
            *_entry_rows(request.parts_of("recalled_memory"), _MEMORY_ENTRY),
        ],
        messages=messages,
        edited=_edited_rows(request.parts),
        per_file_cap=per_file_cap,
        total_cap=total_cap,
        problems=list(problems or []),
        calibration_ratio=calibration_ratio,
    )


# -- files next to the session record ---------------------------------------------------------


def report_path(chats_dir: Path, session_id: str) -> Path:
    # The suffix is shared with deleting a session, which removes this file too.
    return chats_dir / f"{session_id}{CONTEXT_SIDECAR_SUFFIX}"


def save_report(report: ContextReport, chats_dir: Path) -> None:
    atomic_write_text(report_path(chats_dir, report.session_id), json.dumps(report.to_json(), ensure_ascii=False), mode=0o600)


def load_report(chats_dir: Path, session_id: str) -> ContextReport | None:
    try:
        data = json.loads(report_path(chats_dir, session_id).read_text(encoding="utf-8"))
        return ContextReport.from_json(data)
    except (OSError, ValueError, TypeError):
        return None


# -- rendering ------------------------------------------------------------------------------


def fmt(n: float) -> str:
    return f"{int(round(n)):,}"


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "—"


def _header(report: ContextReport, title: str) -> list[str]:
    method = {"exact": "exact token counts", "estimate": "estimated token counts (UTF-8 bytes/4)"}.get(report.token_method, report.token_method)
    source = "last request sent" if report.source == "run" else "assembled now, not sent"
    lines = [
        f"{title} — {source} · {method}",
        f"Model {report.model or '?'} · session {report.session_id[:8] or '—'} · {report.generated_at}",
        f"Window {fmt(report.context_window)} · used {fmt(report.used_tokens)} ({_pct(report.used_tokens, report.context_window)})"
        f" · free {fmt(report.free_tokens)}",
        f"Thresholds: warn {fmt(report.warn)} · auto-compact {fmt(report.auto)} · hard {fmt(report.hard)}"
        + (f" ({report.thresholds_source})" if report.thresholds_source else ""),
    ]
    if report.reported_prompt_tokens:
        gap = report.reported_prompt_tokens - report.tracked_tokens
        lines.append(
            f"Server reported {fmt(report.reported_prompt_tokens)} prompt tokens; tracked {fmt(report.tracked_tokens)} (gap {gap:+,})"
        )
    elif report.calibration_ratio != 1.0:
        lines.append(
            f"Tracked {fmt(report.tracked_tokens)}, calibrated ×{report.calibration_ratio:.2f} by the server's last report "
            f"→ {fmt(report.calibrated_tokens)}"
        )
    elif report.source == "run":
        lines.append("The server has not reported usage for this request.")
    return lines


def _file_lines(report: ContextReport) -> list[str]:
    lines = [f"Instruction files (max {fmt(report.per_file_cap)} chars per file, {fmt(report.total_cap)} in all):"]
    if not report.instruction_files:
        lines.append("  (none found)")
    for row in report.instruction_files:
        if row.status == "MISSING":
            lines.append(f"  {row.name:<34} MISSING")
            continue
        lines.append(
            f"  {row.name:<34} {row.status or 'OK':<9} raw {fmt(row.raw_chars)} chars · injected {fmt(row.chars)} chars · {fmt(row.tokens)} tok"
        )
    truncated = report.truncated_files
    if truncated:
        raw = sum(r.raw_chars for r in truncated)
        injected = sum(r.chars for r in truncated)
        lines.append(
            f"  ⚠ {plural(len(truncated), 'file')} truncated ({fmt(raw)} raw chars -> {fmt(injected)} injected chars); "
            "raise context.per_file_chars / context.total_chars in settings to keep more."
        )
    return lines


def render_list(report: ContextReport) -> str:
    lines = _header(report, "Context breakdown")
    lines.append("")
    for group in report.groups:
        lines.append(f"{group.name:<20} {fmt(group.tokens):>9} tok  {_pct(group.tokens, report.context_window):>6}  {fmt(group.chars):>11} chars")
    lines.append(f"{'Free':<20} {fmt(report.free_tokens):>9} tok  {_pct(report.free_tokens, report.context_window):>6}")
    lines.append("")
    lines.append("System prompt sections:")
    for row in report.system_sections:
        lines.append(f"  {row.name:<34} {fmt(row.tokens):>8} tok")
    lines.append("")
    lines.extend(_file_lines(report))
    lines.append("")
    lines.append(f"Tool schemas: {len(report.tools)} tools, {fmt(sum(r.tokens for r in report.tools))} tok")
    lines.extend(_tool_source_lines(report))
    group = {g.name: g.tokens for g in report.groups}
    lines.append(f"Skills listing: {len(report.skills)} entries, {fmt(group.get('Skills', 0))} tok")
    indexes = _index_rows(report)
    lines.append(f"Memory: {fmt(group.get('Memory', 0))} tok ({indexes} index, {len(report.memories) - indexes} recalled)")
    lines.append("Messages: " + (", ".join(f"{r.name} {r.detail} ({fmt(r.tokens)} tok)" for r in report.messages) or "none yet"))
    for state, title in (("pinned", "Pinned (kept through compaction)"), ("dropped", "Dropped from the view"), ("edited", "Rewritten")):
        rows = [r for r in report.edited if r.detail == state]
        if rows:
            lines.append(f"{title}: " + ", ".join(f"{r.name} {r.source} ({fmt(r.tokens)} tok)" for r in rows))
    if report.problems:
        lines.append("")
        lines.append("Problems:")
        lines.extend(f"  ⚠ {p}" for p in report.problems)
    return "\n".join(lines)


def _tool_source_lines(report: ContextReport, indent: str = "  ") -> list[str]:
    """One line per source of tool schemas, once there is more than the built-in tools."""
    if len(report.tool_sources) < 2:
        return []
    return [f"{indent}{row.name:<32} {row.detail:>4} tools {fmt(row.tokens):>9} tok" for row in report.tool_sources]


def _index_rows(report: ContextReport) -> int:
    return sum(1 for r in report.memories if r.name == "auto-memory")


def render_detail(report: ContextReport) -> str:
    lines = [render_list(report), "", "Top tools by schema size:"]
    for row in sorted(report.tools, key=lambda r: r.tokens, reverse=True)[:30]:
        lines.append(f"  {row.name:<28} {fmt(row.tokens):>7} tok  {fmt(row.chars):>8} chars  {row.detail}")
    lines.append("")
    lines.append("Skills (listing entry size; a share of the listing's count):")
    lines.extend(f"  {r.name:<28} {fmt(r.tokens):>7} tok  {r.detail}" for r in report.skills) if report.skills else lines.append("  (none)")
    lines.append("")
    lines.append("Memory in this request:")
    lines.extend(
        f"  {r.name:<28} {fmt(r.tokens):>7} tok  {r.source}" + (f"  ({r.detail})" if r.detail.startswith("recalled by") else "") for r in report.memories
    ) if report.memories else lines.append("  (none)")
    lines.append("")
    lines.append(f"Tracked estimate of the request: {fmt(report.tracked_tokens)} tok ({report.token_method})")
    if report.reported_prompt_tokens:
        lines.append(f"Server-reported prompt tokens: {fmt(report.reported_prompt_tokens)} tok")
        lines.append(
            f"Untracked overhead (chat template, tool formatting): ~{report.reported_prompt_tokens - report.tracked_tokens:+,} tok"
        )
    else:
        lines.append("Server-reported prompt tokens: not available")
    return "\n".join(lines)


MAP_GLYPHS = {
    "System prompt": "█",
    "Instruction files": "▓",
    "Memory": "▒",
    "Skills": "░",
    "Tool schemas": "▚",
    "Messages": "▞",
    "Tool results": "▤",
    "Summaries": "▥",
    "Reminders": "▦",
}


def render_map(report: ContextReport, width: int = 72) -> str:
    """A stacked bar of the window by source, with the threshold marks under it."""
    window = max(1, report.context_window)
    cells: list[str] = []
    for group in report.groups:
        share = round(width * group.tokens / window)
        if group.tokens and share == 0:
            share = 1
        cells.extend(MAP_GLYPHS.get(group.name, "#") * share)
    cells = cells[:width]
    cells.extend("·" * (width - len(cells)))
    marks = [" "] * width
    for symbol, value in (("w", report.warn), ("a", report.auto), ("h", report.hard)):
        position = min(width - 1, int(width * value / window))
        marks[position] = symbol
    lines = [*_header(report, "Context map"), "", "[" + "".join(cells) + "]", " " + "".join(marks), ""]
    for group in report.groups:
        if group.tokens:
            lines.append(f"  {MAP_GLYPHS.get(group.name, '#')} {group.name:<18} {fmt(group.tokens):>9} tok  {_pct(group.tokens, window):>6}")
            if group.name == "Tool schemas":
                lines.extend(_tool_source_lines(report, indent="      "))
    lines.append(f"  · {'Free':<18} {fmt(report.free_tokens):>9} tok  {_pct(report.free_tokens, window):>6}")
    lines.append("  marks: w warn · a auto-compact · h hard")
    return "\n".join(lines)


def render_json(report: ContextReport) -> str:
    return json.dumps(report.to_json(), ensure_ascii=False, indent=2)


RENDERERS = {"list": render_list, "detail": render_detail, "map": render_map, "json": render_json}
