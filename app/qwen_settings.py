"""Qwen Code's ``.qwen/settings.json`` read as a settings layer, in this program's spelling.

A repository set up for Qwen Code should work unchanged once its folder is trusted, so
the keys that mean something here are mapped (Qwen Code 0.24's names):

    model.name                                    -> model.name
    model.generationConfig.timeout (ms)           -> model.read_timeout (s)
    model.generationConfig.maxRetries             -> model.max_retries
    model.generationConfig.contextWindowSize      -> model.context_window
    model.generationConfig.samplingParams.temperature / max_tokens -> model.temperature / max_output_tokens
    security.auth.baseUrl / apiKey                -> model.base_url / model.api_key
    modelProviders.openai[id == model.name]       -> its baseUrl, and the key from its envKey variable
    tools.approvalMode (or a top-level approvalMode) -> approval_mode
    permissions.allow / ask / deny                -> permissions.* (Bash(...), Read(...) ... become our tool names)
    tools.allowed / tools.exclude (deprecated)    -> permissions.allow / permissions.deny
    context.fileName / includeDirectories / importFormat -> context.*
    context.autoCompactThreshold                  -> compaction.pct
    hooks {Event: [{matcher, hooks: [{type: command, command, timeout}]}]} -> hooks
    mcpServers                                    -> mcp_servers

String values may name environment variables as ``$VAR`` or ``${VAR}``, as in Qwen Code
(the caller passes no environment for an untrusted folder, so nothing is looked up there).
Everything else is named in one warning and ignored. The file is JSON with ``//`` and
``/* */`` comments allowed, as Qwen Code allows them; the comment stripper is a few lines
of our own because no JSONC parser is among the dependencies and one scan is enough.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from app.settings_error import SettingsError

# Qwen Code (and Claude Code) rule names for the tools we have.
TOOL_ALIASES = {
    "Bash": "run_shell_command",
    "Shell": "run_shell_command",
    "ShellTool": "run_shell_command",
    "Read": "read_file",
    "ReadFile": "read_file",
    "Edit": "edit",
    "Write": "write_file",
    "WriteFile": "write_file",
    "Glob": "glob",
    "Grep": "grep_search",
    "LS": "list_directory",
}
_SILENT = {"$version", "$schema"}
_ENV_REFERENCE = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def read_qwen_settings(path: Path, env: dict[str, str]) -> tuple[dict[str, Any] | None, list[str]]:
    """The layer in our spelling (None when the file does not exist) and what was ignored."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, []
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: is not UTF-8 text (bad byte at offset {exc.start})") from None
    try:
        data = json.loads(strip_json_comments(text)) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path} line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: the top level must be an object of settings, not {type(data).__name__}")
    return translate(_with_env(data, env), env)


def _with_env(value: Any, env: dict[str, str]) -> Any:
    """``$VAR`` and ``${VAR}`` in strings replaced by the variable (left as written when it is unset)."""
    if isinstance(value, str):
        return _ENV_REFERENCE.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), value)
    if isinstance(value, list):
        return [_with_env(item, env) for item in value]
    if isinstance(value, dict):
        return {key: _with_env(item, env) for key, item in value.items()}
    return value


def translate(data: dict[str, Any], env: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    layer: dict[str, Any] = {}
    ignored: list[str] = []

    def put(dotted: str, value: Any) -> None:
        target = layer
        *parents, leaf = dotted.split(".")
        for key in parents:
            target = target.setdefault(key, {})
        target[leaf] = value

    for key, value in data.items():
        if key in _SILENT:
            continue
        if key == "model" and isinstance(value, dict):
            _model(value, put, ignored, data, env)
        elif key == "security" and isinstance(value, dict):
            _security(value, put, ignored)
        elif key == "modelProviders":
            continue  # read with model.name, below
        elif key == "tools" and isinstance(value, dict):
            _tools(value, put, ignored)
        elif key == "approvalMode":
            put("approval_mode", value)
        elif key == "permissions" and isinstance(value, dict):
            for name, rules in value.items():
                if name in ("allow", "ask", "deny"):
                    put(f"permissions.{name}", _rules(rules))
                else:
                    ignored.append(f"permissions.{name}")
        elif key == "context" and isinstance(value, dict):
            _context(value, put, ignored)
        elif key == "hooks":
            put("hooks", _hooks(value, ignored))
        elif key == "mcpServers":
            put("mcp_servers", value)
        else:
            ignored.append(key)
    return layer, ignored


def _model(value: dict[str, Any], put: Any, ignored: list[str], data: dict[str, Any], env: dict[str, str]) -> None:
    for key, item in value.items():
        if key == "name":
            put("model.name", item)
            provider = _provider_for(data.get("modelProviders"), item)
            if provider is not None:
                if isinstance(provider.get("baseUrl"), str):
                    put("model.base_url", provider["baseUrl"])
                env_key = provider.get("envKey")
                if isinstance(env_key, str) and env.get(env_key):
                    put("model.api_key", env[env_key])
        elif key == "generationConfig" and isinstance(item, dict):
            for name, setting in item.items():
                if name == "timeout" and isinstance(setting, (int, float)) and not isinstance(setting, bool):
                    put("model.read_timeout", setting / 1000)
                elif name == "maxRetries":
                    put("model.max_retries", setting)
                elif name == "contextWindowSize":
                    put("model.context_window", setting)
                elif name == "samplingParams" and isinstance(setting, dict):
                    for param, number in setting.items():
                        if param == "temperature":
                            put("model.temperature", number)
                        elif param == "max_tokens":
                            put("model.max_output_tokens", number)
                        else:
                            ignored.append(f"model.generationConfig.samplingParams.{param}")
                else:
                    ignored.append(f"model.generationConfig.{name}")
        else:
            ignored.append(f"model.{key}")


def _provider_for(providers: Any, model_name: Any) -> dict[str, Any] | None:
    if not isinstance(providers, dict) or not isinstance(model_name, str):
        return None
    for entry in providers.get("openai") or []:
        if isinstance(entry, dict) and entry.get("id") == model_name:
            return entry
    return None


def _security(value: dict[str, Any], put: Any, ignored: list[str]) -> None:
    auth = value.get("auth")
    for key in value:
        if key != "auth":
            ignored.append(f"security.{key}")
    if not isinstance(auth, dict):
        return
    for key, item in auth.items():
        if key == "baseUrl":
            put("model.base_url", item)
        elif key == "apiKey":
            put("model.api_key", item)
        elif key == "selectedType" and item in ("openai", "USE_OPENAI"):
            continue
        else:
            ignored.append(f"security.auth.{key}")


def _tools(value: dict[str, Any], put: Any, ignored: list[str]) -> None:
    for key, item in value.items():
        if key == "approvalMode":
            put("approval_mode", item)
        elif key == "allowed":
            put("permissions.allow", _rules(item))
        elif key == "exclude":
            put("permissions.deny", _rules(item))
        else:
            ignored.append(f"tools.{key}")


def _context(value: dict[str, Any], put: Any, ignored: list[str]) -> None:
    for key, item in value.items():
        if key == "fileName":
            put("context.file_name", item)
        elif key == "includeDirectories":
            put("context.include_directories", item)
        elif key == "importFormat":
            put("context.import_format", item)
        elif key == "autoCompactThreshold":
            put("compaction.pct", item)
        else:
            ignored.append(f"context.{key}")


def _rules(rules: Any) -> Any:
    """``Bash(git *)`` as ``run_shell_command(git *)``; anything not a list is left for the type check."""
    if not isinstance(rules, list):
        return rules
    out = []
    for rule in rules:
        if isinstance(rule, str):
            name, paren, rest = rule.strip().partition("(")
            rule = TOOL_ALIASES.get(name, name) + paren + rest
        out.append(rule)
    return out


def _hooks(value: Any, ignored: list[str]) -> Any:
    """Qwen Code's ``{Event: [{matcher, hooks: [...]}]}`` as our ``{Event: [{matcher, command, timeout}]}``."""
    if not isinstance(value, dict):
        return value
    flat: dict[str, list[Any]] = {}
    for event, groups in value.items():
        if not isinstance(groups, list):
            flat[event] = groups  # the type check says what is wrong
            continue
        entries: list[Any] = flat.setdefault(event, [])
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                entries.append(group)  # already our shape (or wrong: parse_hook says so)
                continue
            for hook in inner:
                if not isinstance(hook, dict) or hook.get("type", "command") != "command":
                    ignored.append(f"hooks.{event} (a hook that is not a command)")
                    continue
                entry = {"command": hook.get("command")}
                if group.get("matcher") not in (None, ""):
                    entry["matcher"] = group["matcher"]
                if "timeout" in hook:
                    entry["timeout"] = hook["timeout"]
                entries.append(entry)
    return flat


def strip_json_comments(text: str) -> str:
    """JSON with ``//`` line and ``/* */`` block comments removed (strings are left alone)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if char == '"':
                in_string = False
            i += 1
            continue
        if char == '"':
            in_string = True
            out.append(char)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            # Newlines inside the comment are kept so error line numbers stay right.
            out.append("\n" * text.count("\n", i, n if end == -1 else end))
            i = n if end == -1 else end + 2
        else:
            out.append(char)
            i += 1
    return "".join(out)
