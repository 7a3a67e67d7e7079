"""Model-facing MCP tool names fit what OpenAI-compatible endpoints accept."""

from __future__ import annotations

import re

from app.mcp.names import server_of, tool_name, unique

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


def test_server_of() -> None:
    assert server_of("mcp__git__log", ["git", "github"]) == "git"
    assert server_of("mcp__github__log", ["git", "github"]) == "github"
    assert server_of("read_file", ["git"]) is None
