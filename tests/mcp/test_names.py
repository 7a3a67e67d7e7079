"""Model-facing MCP tool names fit what OpenAI-compatible endpoints accept."""

from __future__ import annotations

import re

from app.mcp.names import tool_name, unique

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_plain_names() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"


def test_invalid_characters_are_replaced() -> None:
    name = tool_name("my server.io", "files/read:all")
    assert name == "mcp__my_server_io__files_read_all" and VALID.match(name)


def test_long_names_keep_head_and_tail_within_64() -> None:
    name = tool_name("a-very-long-server-name-for-testing", "and_an_even_longer_tool_name_that_goes_on_and_on_z")
    assert len(name) == 64 and VALID.match(name)
    assert name.startswith("mcp__a-very-long") and name.endswith("goes_on_and_on_z") and "___" in name


def test_collisions_get_a_suffix() -> None:
    taken = {"mcp__s__a_b"}
    assert unique("mcp__s__a_b", taken) == "mcp__s__a_b_2"
    assert unique("mcp__s__c", taken) == "mcp__s__c"


def test_mcp_tools_ask_by_default_and_plan_mode_refuses_them() -> None:
    from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy
    from app.mcp.config import parse_server
    from app.mcp.connection import RemoteTool, ServerConnection
    from app.mcp.tools import McpTool

    connection = ServerConnection(parse_server("s", {"command": "x"}), connect_timeout=1)
    tool = McpTool("mcp__s__t", RemoteTool("t", "", {"type": "object"}), connection)
    decide = lambda mode, **rules: PermissionPolicy(mode=mode, **rules).decide(tool, {})[0]  # noqa: E731
    assert decide(ApprovalMode.DEFAULT) is PermissionDecision.ASK
    assert decide(ApprovalMode.AUTO_EDIT) is PermissionDecision.ASK  # not a file edit
    assert decide(ApprovalMode.YOLO) is PermissionDecision.ALLOW
    assert decide(ApprovalMode.PLAN, allow=["mcp__s__t"]) is PermissionDecision.DENY
    assert decide(ApprovalMode.DEFAULT, allow=["mcp__s__t"]) is PermissionDecision.ALLOW
