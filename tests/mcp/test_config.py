"""mcpServers entries as Qwen Code writes them, and the clear errors for bad ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.config import load_settings
from app.mcp.config import HTTP, SSE, STDIO, ServerConfigError, parse_server, parse_servers
from app.paths import Paths


def test_qwen_code_stdio_entry() -> None:
    config = parse_server("github", {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "$GH"}, "timeout": 30000, "trust": False})
    assert config.transport == STDIO
    assert config.target == "npx -y @modelcontextprotocol/server-github"
    assert config.env == {"GITHUB_TOKEN": "$GH"} and config.timeout == 30.0


def test_http_url_is_streamable_http_and_url_is_sse() -> None:
    assert parse_server("a", {"httpUrl": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}).transport == HTTP
    assert parse_server("b", {"url": "http://localhost:8080/sse"}).transport == SSE
    assert parse_server("c", {"url": "http://localhost:8080/mcp", "type": "http"}).transport == HTTP


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({}, "give exactly one of 'command' (stdio), 'httpUrl'"),
        ({"command": "x", "httpUrl": "http://h/mcp"}, "found command and httpUrl"),
        ({"command": "x", "args": "--flag"}, "mcpServers.s.args must be a list of strings"),
        ({"command": "x", "timeout": "fast"}, "mcpServers.s.timeout must be a positive number of milliseconds"),
        ({"command": "x", "timeout": 0}, "mcpServers.s.timeout"),
        ({"command": "x", "trust": "yes"}, "mcpServers.s.trust must be true or false"),
        ({"command": "x", "env": {"A": ["list"]}}, "mcpServers.s.env.A must be a string"),
        ({"command": "x", "includeTools": "echo"}, "mcpServers.s.includeTools must be a list of tool names"),
        ({"httpUrl": "ftp://h/mcp"}, "is not an http:// or https:// URL"),
        ({"command": "x", "cwd": "/no/such/dir"}, "mcpServers.s.cwd: '/no/such/dir' is not a directory"),
        ({"command": "x", "comand": "typo"}, "unknown setting(s) comand"),
    ],
)
def test_bad_entries_name_the_setting(entry: dict, needle: str) -> None:
    with pytest.raises(ServerConfigError) as error:
        parse_server("s", {**entry, "_file": "/home/u/.config/agentctx/settings.yaml"})
    assert needle in str(error.value)
    assert str(error.value).startswith("/home/u/.config/agentctx/settings.yaml: mcpServers.s")


def test_one_bad_entry_does_not_stop_the_others() -> None:
    servers, problems = parse_servers({"bad": {"args": []}, "good": {"command": "x"}}, trusted=True)
    assert [s.name for s in servers] == ["good"]
    assert len(problems) == 1 and "mcpServers.bad" in problems[0]


def test_exclude_wins_over_include() -> None:
    config = parse_server("s", {"command": "x", "includeTools": ["a", "b"], "excludeTools": ["b"]})
    assert config.offers("a") and not config.offers("b") and not config.offers("c")


def _paths(tmp_path: Path) -> Paths:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    return Paths.for_cwd(project)


def test_layers_merge_by_server_name_and_are_tagged(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text("mcpServers:\n  a: {command: user-a}\n  b: {command: user-b}\n", encoding="utf-8")
    paths.project_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.project_settings_file.write_text("mcp_servers:\n  b: {httpUrl: 'http://127.0.0.1:1/mcp'}\n", encoding="utf-8")
    from app.hooks.trust import FolderTrust

    FolderTrust(paths.config_dir).remember(paths.project_root, True)  # the project layer is about to need it (folder trust)
    settings = load_settings(paths, env={})
    assert settings.mcp_servers["a"]["command"] == "user-a" and settings.mcp_servers["a"]["_layer"] == "user"
    assert settings.mcp_servers["b"] == {"httpUrl": "http://127.0.0.1:1/mcp", "_layer": "project", "_file": str(paths.project_settings_file)}
    assert not [w for w in settings.warnings if "mcp" in w]


def test_mcp_settings_and_a_bad_mcp_servers_value(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text("mcp:\n  deferredShare: 0.05\nmcpServers: [oops]\n", encoding="utf-8")
    settings = load_settings(paths, env={})
    assert settings.mcp.deferred_share == 0.05
    assert settings.mcp_servers == {}
    assert any("'mcpServers' must be a mapping" in w for w in settings.warnings)


def test_a_qwen_code_settings_json_entry_parses_unchanged() -> None:
    # The shape of Qwen Code's docs example (.qwen/settings.json), as the trust branch reads it in.
    raw = json.loads('{"mcpServers": {"pythonTools": {"command": "python", "args": ["-m", "my_mcp_server", "--port", "8080"], "env": {"DATABASE_URL": "$DB_CONNECTION_STRING"}, "timeout": 15000}}}')
    servers, problems = parse_servers({k: {**v, "_layer": "user"} for k, v in raw["mcpServers"].items()}, trusted=True)
    assert problems == [] and servers[0].args == ("-m", "my_mcp_server", "--port", "8080") and servers[0].timeout_ms == 15000
