"""What a repository's own settings would change, in lines a person can judge before trusting it.

The project layer is everything a folder brings that changes what the program does:
``.qwen/settings.yaml``, Qwen Code's ``.qwen/settings.json`` (hooks and MCP servers
come with them) and project skills' ``allowedTools``. It applies only in a trusted
folder (:mod:`app.trust`); these lines are what the trust question, ``agentctx-tui
trust`` and the headless notice show.
"""

from __future__ import annotations

import re
from app.core.tools.text import plural
from collections.abc import Iterable
from dataclasses import field
from app.dataclass import dataclass
from typing import Any

# Keys named on their own line; every other key is summed up as "other settings".
_NAMED = ("model", "approval_mode", "permissions", "context", "hooks", "mcp_servers")
_LIST_MAX = 6
# A repository's text must not drive the terminal it is shown in (escapes, bells, carriage returns).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass
class ProjectLayer:
    """The project settings files found, what they would change, and whether they were applied."""

    files: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    trusted: bool = False

    @property
    def present(self) -> bool:
        return bool(self.files)

    @property
    def ignored(self) -> bool:
        return self.present and not self.trusted


def describe_layer(data: dict[str, Any]) -> list[str]:
    """One line per kind of change in a merged project layer (our key spelling)."""
    lines: list[str] = []
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    if model.get("base_url"):
        lines.append(f"model endpoint: {model['base_url']} (your API key would be sent there)")
    if model.get("api_key"):
        lines.append("API key: replaced by one from the project")
    if model.get("name"):
        lines.append(f"model: {model['name']}")
    other_model = sorted(k for k in model if k not in ("base_url", "api_key", "name"))
    if "approval_mode" in data:
        lines.append(f"approval mode: {data['approval_mode']}")
    permissions = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
    for kind in ("allow", "ask", "deny"):
        rules = permissions.get(kind)
        if rules:
            lines.append(f"permissions {kind}: {_joined(rules)}")
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    if context.get("include_directories") or context.get("includeDirectories"):
        lines.append(f"extra directories read into the prompt: {_joined(context.get('include_directories') or context.get('includeDirectories'))}")
    if context.get("file_name") or context.get("fileName"):
        lines.append(f"instruction file names: {_joined(context.get('file_name') or context.get('fileName'))}")
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        commands = [f"{event}: {_command(entry)}" for event, entries in hooks.items() if isinstance(entries, list) for entry in entries]
        if commands:
            lines.append(f"hooks ({plural(len(commands), 'command')} run on events): {_joined(commands)}")
    servers = data.get("mcp_servers") if isinstance(data.get("mcp_servers"), dict) else data.get("mcpServers")
    if isinstance(servers, dict) and servers:
        lines.append(f"MCP servers it would start: {_joined([f'{name} ({_command(spec)})' for name, spec in servers.items()])}")
    other = [f"model.{k}" for k in other_model] + sorted(k for k in data if k not in _NAMED and k != "mcpServers")
    other += [f"context.{k}" for k in sorted(context) if k not in ("include_directories", "includeDirectories", "file_name", "fileName")]
    if other:
        lines.append(f"other settings: {_joined(other)}")
    return [printable(line) for line in lines]


def printable(text: str) -> str:
    """Control and bidi characters spelt out (``\\x1b``), so the line is shown, never obeyed."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def grant_lines(skills: Iterable[Any]) -> list[str]:
    """Project skills whose ``allowedTools`` would run tools without asking once the folder is trusted (none before)."""
    lines = []
    for skill in skills:
        if getattr(getattr(skill, "level", None), "value", None) == "project" and skill.allowed_tools:
            lines.append(printable(f"tool grants of the project skill '{skill.name}': {_joined(skill.allowed_tools)}"))
    return lines


def ignored_notice(changes: list[str]) -> str:
    """The one line a headless run prints when an untrusted folder's layer was ignored."""
    kinds = "; ".join(line.split(":", 1)[0] for line in changes) or "project settings"
    return (
        f"this folder is not trusted, so its project settings were ignored ({kinds}); "
        "run 'agentctx-tui trust' here to apply them"
    )


def _command(entry: Any) -> str:
    if isinstance(entry, dict):
        command = entry.get("command") or entry.get("url") or entry.get("httpUrl") or "?"
        args = entry.get("args")
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        if isinstance(args, list):
            command = " ".join([str(command), *(str(a) for a in args)])
        return str(command)
    return str(entry)


def _joined(items: Any) -> str:
    values = [str(v) for v in items] if isinstance(items, (list, tuple)) else [str(items)]
    shown = ", ".join(values[:_LIST_MAX])
    return shown + (f" and {len(values) - _LIST_MAX} more" if len(values) > _LIST_MAX else "")
