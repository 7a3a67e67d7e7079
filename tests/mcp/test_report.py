"""The context report and map group tool schemas by server, with their tokens."""

from __future__ import annotations

from app.context.report import build_report, render_list, render_map
from app.core.request import AssembledRequest, tool_schema_parts
from app.tui.widgets.context_map import blocks_from_request


def _schema(name: str, description: str = "d") -> dict:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {"type": "object", "properties": {}}}}


def _request() -> AssembledRequest:
    tools = [_schema("read_file"), _schema("edit"), _schema("mcp__github__create_issue", "x" * 400), _schema("mcp__github__list"), _schema("mcp__db__query"), _schema("tool_search", "listing " * 50)]
    parts = tool_schema_parts(tools)
    for part in parts:
        part.tokens = len(part.text) // 4
    return AssembledRequest(parts=parts, messages=[], tools=tools, model="m", context_window=10_000)


def test_report_rows_per_source() -> None:
    report = build_report(_request(), source="estimate", session_id="")
    rows = {row.name: row for row in report.tool_sources}
    assert list(rows) == ["built-in", "MCP github", "MCP db", "tool_search (deferred MCP tools)"]
    assert rows["MCP github"].detail == "2"
    parts = {p.name: p.tokens for p in _request().parts}
    assert rows["MCP github"].tokens == parts["mcp__github__create_issue"] + parts["mcp__github__list"]


def test_list_and_map_show_them() -> None:
    report = build_report(_request(), source="estimate", session_id="")
    listing = render_list(report)
    assert "  MCP github" in listing and "2 tools" in listing
    assert "MCP db" in render_map(report)


def test_the_report_survives_its_json_round_trip() -> None:
    from app.context.report import ContextReport

    report = build_report(_request(), source="estimate", session_id="")
    again = ContextReport.from_json(report.to_json())
    assert [r.name for r in again.tool_sources] == [r.name for r in report.tool_sources]


def test_only_built_in_tools_add_no_lines() -> None:
    tools = [_schema("read_file")]
    request = AssembledRequest(parts=tool_schema_parts(tools), messages=[], tools=tools, model="m", context_window=1000)
    assert "built-in" not in render_list(build_report(request, source="estimate", session_id=""))


def test_the_map_pools_schemas_by_server() -> None:
    names = [block.name for block in blocks_from_request(_request())]
    assert names == ["tool schemas (2)", "MCP github schemas (2)", "MCP db schemas (1)", "tool_search (deferred MCP tools) schemas (1)"]
