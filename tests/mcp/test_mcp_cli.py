"""`agentctx-tui mcp list [--json]` and `context` with MCP servers, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_headless_cli import cli
from tests.mcp.servers import http_server, stdio_entry, write_user_settings
from tests.workspace import Workspace

WORKSPACE = Workspace(name="repo", git=True)


def test_mcp_list_json_shows_status_transport_tools_and_tokens(workspace: Path, hermetic_home: Path) -> None:
    with http_server() as url:
        write_user_settings(
            hermetic_home,
            {"mcpServers": {"local": stdio_entry(trust=True), "web": {"httpUrl": url}, "broken": stdio_entry("--crash-on-start")}},
        )
        result = cli(["mcp", "list", "--json"], cwd=workspace)
    assert result.returncode == 1  # one server failed: a script can tell
    data = json.loads(result.stdout)
    rows = {row["name"]: row for row in data["servers"]}
    assert rows["local"]["status"] == "connected" and rows["local"]["transport"] == "stdio" and rows["local"]["trust"] is True
    assert rows["web"]["status"] == "connected" and rows["web"]["transport"] == "http" and rows["web"]["target"] == url
    assert {t["name"] for t in rows["web"]["tools"]} >= {"mcp__web__echo", "mcp__web__add"}
    assert rows["local"]["schema_tokens"] == sum(t["tokens"] for t in rows["local"]["tools"]) > 0
    assert rows["broken"]["status"] == "failed" and "on purpose" in rows["broken"]["stderr_tail"]
    assert data["deferred"] is False


def test_mcp_list_text_and_a_bad_entry(workspace: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"ok": stdio_entry(), "bad": {"command": "x", "args": "--one-string"}}})
    result = cli(["mcp", "list"], cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "ok  [connected]  stdio · user" in result.stdout
    assert "9 tools" in result.stdout and "mcp__ok__echo" in result.stdout
    assert "mcpServers.bad.args must be a list of strings" in result.stdout


def test_mcp_list_with_no_servers(workspace: Path) -> None:
    result = cli(["mcp", "list"], cwd=workspace)
    assert result.returncode == 0
    assert "No MCP servers are configured" in result.stdout


def test_context_estimate_includes_the_servers_tools(workspace: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"fake": stdio_entry()}})
    result = cli(["context", "list"], cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert any(line.strip().startswith("MCP fake") and "9 tools" in line for line in result.stdout.splitlines()), result.stdout
