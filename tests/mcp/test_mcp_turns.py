"""Whole turns that call tools on real MCP servers (built with the SDK) through the local fake model."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_headless_cli import cli
from tests.mcp.servers import http_server, stdio_entry, write_user_settings
from tests.workspace import Workspace

WORKSPACE = Workspace(name="repo", git=True)


def _tool_result(request, call_id: str) -> str:  # type: ignore[no-untyped-def]
    return next(m["content"] for m in request.body["messages"] if m.get("role") == "tool" and m.get("tool_call_id") == call_id)


def test_a_turn_calls_a_stdio_server_tool_and_the_next_request_carries_its_result(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"fake": stdio_entry(trust=True)}})
    fake_llm.push(Reply.tool_calls([("c1", "mcp__fake__echo", {"text": "hello MCP"})]))
    fake_llm.push(Reply.text("done"))
    result = cli(["-p", "echo it", "--output-format", "json"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    first = fake_llm.requests[0].body
    assert "mcp__fake__echo" in [t["function"]["name"] for t in first["tools"]]
    assert _tool_result(fake_llm.requests[1], "c1") == "echo: hello MCP"
    assert [(c["name"], c["status"]) for c in json.loads(result.stdout)["tool_calls"]] == [("mcp__fake__echo", "ok")]
    # The report of that request groups the tool schemas by server.
    report = cli(["context", "list"], cwd=workspace)
    assert report.returncode == 0, report.stderr
    line = next(l for l in report.stdout.splitlines() if l.strip().startswith("MCP fake"))
    assert "9 tools" in line


def test_an_untrusted_server_tool_asks_and_headless_refuses_it(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"fake": stdio_entry()}})
    fake_llm.push(Reply.tool_calls([("c1", "mcp__fake__echo", {"text": "x"})]))
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "echo it"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert "needs approval" in _tool_result(fake_llm.requests[1], "c1")


def test_a_streamable_http_server_works_the_same(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path) -> None:
    with http_server() as url:
        write_user_settings(hermetic_home, {"mcpServers": {"web": {"httpUrl": url, "trust": True}}})
        fake_llm.push(Reply.tool_calls([("c1", "mcp__web__add", {"a": 2, "b": 40})]))
        fake_llm.push(Reply.text("42"))
        result = cli(["-p", "add"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert _tool_result(fake_llm.requests[1], "c1") == "42"


def test_a_project_server_in_an_untrusted_folder_never_starts(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    import yaml

    marker = tmp_path / "started.pid"
    settings = workspace / ".qwen" / "settings.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text(yaml.safe_dump({"mcpServers": {"repo": stdio_entry("--pid-file", str(marker), trust=True)}}), encoding="utf-8")
    fake_llm.push(Reply.tool_calls([("c1", "mcp__repo__echo", {"text": "x"})]))
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "use it"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    # The untrusted project layer is left out whole (folder trust), and said once.
    assert "this folder is not trusted, so its project settings were ignored (MCP servers it would start)" in result.stderr
    assert not marker.exists()  # its command never ran
    assert "mcp__repo__echo" not in [t["function"]["name"] for t in fake_llm.requests[0].body["tools"]]
    assert "Unknown tool" in _tool_result(fake_llm.requests[1], "c1")
    # Once trusted, the same repository's server starts unchanged.
    assert cli(["trust"], cwd=workspace).returncode == 0
    fake_llm.push(Reply.tool_calls([("c2", "mcp__repo__echo", {"text": "trusted"})]))
    fake_llm.push(Reply.text("ok"))
    again = cli(["-p", "use it"], cwd=workspace, server=fake_llm)
    assert again.returncode == 0, again.stderr
    assert marker.exists() and _tool_result(fake_llm.requests[3], "c2") == "echo: trusted"


def test_a_repository_set_up_for_qwen_code_works_unchanged_once_trusted(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    """Qwen Code's own .qwen/settings.json (camelCase, its mcpServers) declares the server; nothing is translated by hand."""
    marker = tmp_path / "started.pid"
    qwen = workspace / ".qwen" / "settings.json"
    qwen.parent.mkdir(parents=True)
    entry = stdio_entry("--pid-file", str(marker), trust=True, timeout=30000)
    qwen.write_text(json.dumps({"mcpServers": {"repo-tools": entry}, "tools": {"approvalMode": "default"}}, indent=2), encoding="utf-8")
    fake_llm.push(Reply.tool_calls([("c1", "mcp__repo-tools__echo", {"text": "x"})]), Reply.text("ok"))
    untrusted = cli(["-p", "use it"], cwd=workspace, server=fake_llm)
    assert untrusted.returncode == 0, untrusted.stderr
    assert not marker.exists(), "an untrusted folder starts none of its servers"
    assert "run 'agentctx-tui trust' here" in untrusted.stderr

    assert cli(["trust"], cwd=workspace).returncode == 0
    fake_llm.push(Reply.tool_calls([("c2", "mcp__repo-tools__echo", {"text": "from Qwen's settings"})]), Reply.text("done"))
    trusted = cli(["-p", "use it"], cwd=workspace, server=fake_llm)
    assert trusted.returncode == 0, trusted.stderr
    assert marker.exists()
    assert "mcp__repo-tools__echo" in [t["function"]["name"] for t in fake_llm.requests[2].body["tools"]]
    assert _tool_result(fake_llm.requests[3], "c2") == "echo: from Qwen's settings"
