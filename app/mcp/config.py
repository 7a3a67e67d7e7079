"""One MCP server's settings as Qwen Code writes them (``mcpServers`` in settings.json / settings.yaml).

``command``/``args``/``env``/``cwd`` start a stdio server; ``httpUrl`` is streamable
HTTP and ``url`` the older SSE transport; ``headers`` go with either HTTP kind.
``timeout`` is in milliseconds, as in Qwen Code. A bad entry is refused with a
message naming the setting, and the other servers still start.
"""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import Any

STDIO, HTTP, SSE = "stdio", "http", "sse"
# Qwen Code's default request timeout for an MCP server (10 minutes, in ms).
DEFAULT_TIMEOUT_MS = 600_000
_KNOWN = {
    "command", "args", "env", "cwd", "url", "httpUrl", "http_url", "headers", "timeout", "trust",
    "includeTools", "include_tools", "excludeTools", "exclude_tools", "description", "type", "disabled",
}


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server as configured: how to reach it, which of its tools to take, and the layer it came from."""

    name: str
    transport: str  # stdio | http | sse
    layer: str = "user"  # user | project
    source: str = "settings"
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    trust: bool = False
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    description: str = ""

    @property
    def timeout(self) -> float:
        return self.timeout_ms / 1000

    @property
    def target(self) -> str:
        """What a person recognises the server by: its command line or its URL."""
        if self.transport == STDIO:
            return " ".join([self.command, *self.args])
        return self.url

    def offers(self, tool: str) -> bool:
        """includeTools / excludeTools, as Qwen Code applies them (exclude wins)."""
        if tool in self.exclude_tools:
            return False
        return self.include_tools is None or tool in self.include_tools


class ServerConfigError(ValueError):
    """An entry that cannot be used; the message names the setting and what to do."""


def parse_servers(raw: dict[str, dict], *, trusted: bool) -> tuple[list[ServerConfig], list[str]]:
    """The usable servers and one problem line per entry refused or skipped.

    Project-level entries are used only when ``trusted`` (the folder is trusted).
    """
    servers: list[ServerConfig] = []
    problems: list[str] = []
    for name, entry in raw.items():
        layer = str(entry.get("_layer", "user"))
        if layer == "project" and not trusted:
            problems.append(
                f"MCP server '{name}' from the project settings is not started: this folder is not trusted "
                "(agentctx-tui hooks trust, or /hooks trust and a new session, trusts it)"
            )
            continue
        if entry.get("disabled") is True:
            continue
        try:
            servers.append(parse_server(name, entry))
        except ServerConfigError as exc:
            problems.append(str(exc))
    return servers, problems


def parse_server(name: str, entry: dict[str, Any]) -> ServerConfig:
    source = str(entry.get("_file", "settings"))
    where = f"{source}: mcpServers.{name}"
    if not name or not isinstance(name, str):
        raise ServerConfigError(f"{source}: mcpServers has an entry without a name")
    unknown = sorted(k for k in entry if not k.startswith("_") and k not in _KNOWN)
    if unknown:
        raise ServerConfigError(f"{where}: unknown setting(s) {', '.join(unknown)}; expected command/args/env/cwd, httpUrl or url, headers, timeout, includeTools, excludeTools, trust")
    command = entry.get("command")
    http_url = entry.get("httpUrl", entry.get("http_url"))
    url = entry.get("url")
    given = [k for k, v in (("command", command), ("httpUrl", http_url), ("url", url)) if v]
    if len(given) != 1:
        what = "none of them" if not given else " and ".join(given)
        raise ServerConfigError(f"{where}: give exactly one of 'command' (stdio), 'httpUrl' (streamable HTTP) or 'url' (SSE); found {what}")
    if command:
        transport = STDIO
    elif http_url:
        transport = HTTP
    else:
        # Qwen Code's newer spelling: url with type "http" means streamable HTTP.
        transport = HTTP if str(entry.get("type", "")).lower() in ("http", "streamable-http", "streamable_http") else SSE
    target = str(command or http_url or url)
    if transport != STDIO and not target.startswith(("http://", "https://")):
        raise ServerConfigError(f"{where}: {given[0]} {target!r} is not an http:// or https:// URL")
    return ServerConfig(
        name=name,
        transport=transport,
        layer=str(entry.get("_layer", "user")),
        source=source,
        command=_text(command, f"{where}.command") if command else "",
        args=_texts(entry.get("args", []), f"{where}.args"),
        env=_mapping(entry.get("env", {}), f"{where}.env"),
        cwd=_cwd(entry.get("cwd"), f"{where}.cwd", source),
        url=target if transport != STDIO else "",
        headers=_mapping(entry.get("headers", {}), f"{where}.headers"),
        timeout_ms=_timeout(entry.get("timeout", DEFAULT_TIMEOUT_MS), f"{where}.timeout"),
        trust=_flag(entry.get("trust", False), f"{where}.trust"),
        include_tools=_optional_names(entry, ("includeTools", "include_tools"), where),
        exclude_tools=_optional_names(entry, ("excludeTools", "exclude_tools"), where) or (),
        description=str(entry.get("description", "") or ""),
    )


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ServerConfigError(f"{where} must be a non-empty string")
    return value


def _texts(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise ServerConfigError(f"{where} must be a list of strings (write each argument as its own item)")
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        raise ServerConfigError(f"{where} must be a list of strings")
    return tuple(str(v) for v in value)


def _mapping(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ServerConfigError(f"{where} must be a mapping of names to strings")
    out: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise ServerConfigError(f"{where}.{key} must be a string")
        out[str(key)] = str(item)
    return out


def _cwd(value: Any, where: str, source: str) -> str | None:
    if value is None:
        return None
    text = _text(value, where)
    path = Path(text).expanduser()
    if not path.is_absolute() and source not in ("settings", ""):
        # Relative to the folder that holds .qwen/ (project) or the config dir (user), as Qwen Code resolves it.
        base = Path(source).parent
        path = (base.parent if base.name == ".qwen" else base) / path
    if not path.is_dir():
        raise ServerConfigError(f"{where}: {text!r} is not a directory")
    return str(path)


def _timeout(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ServerConfigError(f"{where} must be a positive number of milliseconds (e.g. 30000), got {value!r}")
    return int(value)


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ServerConfigError(f"{where} must be true or false, got {value!r}")
    return value


def _optional_names(entry: dict[str, Any], keys: tuple[str, ...], where: str) -> tuple[str, ...] | None:
    for key in keys:
        if key in entry:
            value = entry[key]
            if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ServerConfigError(f"{where}.{key} must be a list of tool names")
            return tuple(value)
    return None
