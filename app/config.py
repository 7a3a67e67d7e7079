"""Settings: defaults < user settings.yaml < project layer < env < flags.

The project layer (Qwen Code's ``.qwen/settings.json``, then ``.qwen/settings.yaml``)
applies only in a folder the user trusts (:mod:`app.trust`); otherwise it is
recorded in ``Settings.project_layer`` (what it would change) and ignored.

A malformed file is an error that names the file and line; an unknown key or a
value of the wrong type is a warning and the value is ignored, so one typo never
keeps the app from starting.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import os
import re
import types
import typing
from dataclasses import field
from app.dataclass import dataclass
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.paths import Paths
from app.project_layer import ProjectLayer, describe_layer
from app.settings_error import SettingsError  # noqa: F401 (raised here, imported from here by many)

APPROVAL_MODES = ("default", "auto-edit", "yolo", "plan")
SANDBOX_MODES = ("auto", "required", "off")


@dataclass
class ModelSettings:
    """The ``model`` section: the endpoint and model to use, and how each request to it is sent and bounded."""

    # The model's name as the endpoint knows it (OPENAI_MODEL).
    name: str = ""
    # The endpoint, ending in /v1 (OPENAI_BASE_URL).
    base_url: str = ""
    # Sent as the bearer token (OPENAI_API_KEY); any text for a local server. Never reaches a shell command.
    api_key: str = ""
    # The window in tokens; unset: known from the model family (AGENTCTX_CONTEXT_WINDOW).
    context_window: int | None = None
    # max_tokens of every request; unset: 32,000 (4,000 on a window of 32 K or less), capped by the room left.
    max_output_tokens: int | None = None
    # Sampling temperature; unset: the endpoint's default.
    temperature: float | None = None
    # Seconds to open the connection to the endpoint.
    connect_timeout: float = 10.0
    # Longest wait for the next complete piece of a streamed answer (text, reasoning or a tool-call
    # fragment); keep-alive comments and bytes dripped without completing an event do not count.
    read_timeout: float = 120.0
    # Longest one request may take from sending to its last piece, however steadily it streams.
    request_timeout: float = 1800.0
    # Largest single line (or event) of the event stream: past it the stream is closed and the person told.
    max_line_bytes: int = 1_000_000
    # Largest answer (text, reasoning and tool-call arguments together), closed and told the same way.
    max_answer_chars: int = 4_000_000
    # Retries on 429, 5xx and dropped connections (Retry-After is honoured).
    max_retries: int = 4
    # All retries of one request together wait at most this long.
    max_retry_seconds: float = 60.0
    # Whether the model takes images (read_file sends them); unset: known from the model's name.
    vision: bool | None = None


@dataclass
class PermissionSettings:
    """The ``permissions`` section: rules that allow, ask about or deny tool calls (app/core/tools/permission_rules.py)."""

    # Rules like "run_shell_command(git status)" or "write_file(src/**)": deny > ask > allow > the mode's default.
    allow: list[str] = field(default_factory=list)
    # Calls that always ask, whatever the mode.
    ask: list[str] = field(default_factory=list)
    # Calls that are refused, in every mode (yolo included).
    deny: list[str] = field(default_factory=list)


@dataclass
class ShellSettings:
    """The ``shell`` section: how long a shell command may run, and the size tool output is cut to."""

    # Seconds a shell command may run before it is ended (its whole process group).
    timeout: float = 120.0
    # Characters of a command's output the model gets (head and tail around a marker).
    output_limit: int = 30_000
    # How a command that runs without your approval (speculation, the memory agents, a skill's grant) is
    # contained: auto = in the OS sandbox where there is one, and asked about where there is none;
    # required = the same, named as a requirement; off = run unasked without a sandbox, as before.
    sandbox: str = "auto"


@dataclass
class ContextSettings:
    """The ``context`` section: which instruction files are read and how far they may grow, and the context engine."""

    # Instruction file names searched in every directory (Qwen Code's context.fileName).
    file_name: list[str] = field(default_factory=lambda: ["QWEN.md", "AGENTS.md"])
    # More directories whose instruction files are read (Qwen Code's context.includeDirectories).
    include_directories: list[str] = field(default_factory=list)
    # Instruction-file caps in chars; unset, they scale with the window (10 % / 25 %, at least 20,000 / 60,000).
    per_file_chars: int | None = None
    # All instruction files together, in chars; unset: scales with the window.
    total_chars: int | None = None
    # tree: each @import replaced in place by the file; flat: every file reached listed once.
    import_format: str = "tree"
    # The context engine (an entry point in the group agentctx.context_engines); builtin when unset.
    engine: str = "builtin"
    # Options handed to the context engine as strings (e.g. {turns: "4"}).
    engine_options: dict[str, str] = field(default_factory=dict)


@dataclass
class CompactionSettings:
    """The ``compaction`` section: when the history is compacted, how, and what is cleared or pruned meanwhile."""

    # Fraction of the window where auto-compaction starts. Unset: the seed's formula (70 %, or 33 K
    # before the end of a large window); set: exactly that fraction (see compaction/thresholds.py).
    pct: float | None = None
    # Where an explicit pct was set (a settings file, "environment", "command line"); filled while loading.
    pct_source: str = field(default="", metadata={"internal": True})
    # Compact on its own at the threshold; off: only /compress (the hard limit still forces it).
    auto: bool = True
    # Interactive sessions show a countdown before auto-compaction; Esc skips it (hard still forces).
    auto_delay_seconds: float = 3.0
    # Longest the summary request may take.
    timeout_seconds: float = 180.0
    # max_tokens of the summary request.
    max_output_tokens: int = 20_000
    # A summary that lost a file path or an open task named in the history is asked for once more.
    quality_check: bool = True
    # Micro-compaction clears old tool results but keeps this many of the newest.
    keep_recent_tool_results: int = 5
    # Micro-compaction after this long without an answer (the prompt cache has expired); < 0: never.
    idle_minutes: float = 60.0
    # Micro-compaction when clearable tool output passes this many characters; < 0: never.
    size_chars: int = 500_000
    pruning: str = "cache-ttl"  # off | cache-ttl
    # With cache-ttl pruning: old tool results are dropped from the view once the cache is this old.
    prune_ttl_minutes: float = 5.0
    # Just before auto-compaction, memories are extracted from what is about to be summarised.
    memory_flush: bool = True
    # Images from tool results that start a compaction below the token threshold (0: never).
    image_threshold: int = 50


@dataclass
class MemorySettings:
    """The ``memory`` section: whether memories are recalled, extracted and consolidated (dreaming), and how."""

    # Memory files are read into the prompt and kept; off: no memory at all.
    enabled: bool = True
    # Memories relevant to each prompt are recalled into it.
    recall: bool = True
    # The model picks recalled memories (heuristic fallback); off = heuristic only, no extra request.
    recall_model: bool = True
    # Longest the model's pick of recalled memories may take before the heuristic one is used.
    recall_timeout: float = 30.0
    # The first request of a turn waits this long at most for the local (keyword) recall.
    recall_wait_seconds: float = 0.15
    # Embedding recall fused with BM25F: auto (when the embeddings extra is installed) | on | off.
    # Typed object: YAML reads an unquoted on / off as true / false (app/context/memory/semantic.py).
    semantic: object = "auto"
    # After a turn, a background agent writes down what is worth remembering.
    extraction: bool = True
    # Now and then, a background agent consolidates memories (merges, prunes duplicates).
    dream: bool = True
    # Headless runs exit right after the answer; background extraction would hold them up.
    headless_background: bool = False


@dataclass
class SuggestionSettings:
    """The ``suggestions`` section: the next-request suggestion after an answer, and running it ahead."""

    # After an answer, suggest the likely next request (greyed in the prompt; Tab or Enter accepts).
    enabled: bool = True
    # While you read, run the suggestion in a copy-on-write overlay so accepting it is instant.
    speculate: bool = True


@dataclass
class SkillsSettings:
    """The ``skills`` section: skills switched off by name, and drafting new ones from a long session."""

    # Skill names that are never listed or loaded.
    disabled: list[str] = field(default_factory=list)
    # After 20 tool calls in a session, draft one reusable skill for you to keep or discard.
    auto_draft: bool = True


@dataclass
class UISettings:
    """The ``ui`` section: the look of the app and how much of it stays on screen."""

    # A Textual theme name.
    theme: str = "textual-dark"
    # Finished messages beyond this many are unmounted; the transcript stays in memory.
    max_mounted_messages: int = 40
    # Below this many columns the context map collapses (F2 still shows it).
    map_collapse_width: int = 100
    # Draw the first frame this project drew last time at this size while the TUI loads (app/tui/frame_cache.py).
    first_frame_cache: bool = True


@dataclass
class SessionSettings:
    """The ``sessions`` section: naming a session on its own, and the recap on resuming one."""

    # A short side query after the first finished exchange names the session.
    auto_title: bool = True
    # Resuming a session idle for more than 5 minutes shows a "where you left off" recap.
    recap_on_resume: bool = True


@dataclass
class McpSettings:
    """The ``mcp`` section: how MCP servers' tools share the window and how long a server may take to start."""

    # Above this share of the window, MCP tool schemas are deferred behind tool_search.
    deferred_share: float = 0.10
    # Longest wait for a server to start and list its tools (headless turns wait this long at most).
    connect_timeout: float = 30.0


@dataclass
class Settings:
    """Every setting after all layers are merged, plus what loading found out (sources, warnings, the project layer)."""

    model: ModelSettings = field(default_factory=ModelSettings)
    # default | auto-edit | yolo | plan (AGENTCTX_APPROVAL_MODE; shift+tab cycles it).
    approval_mode: str = "default"
    permissions: PermissionSettings = field(default_factory=PermissionSettings)
    shell: ShellSettings = field(default_factory=ShellSettings)
    ui: UISettings = field(default_factory=UISettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    skills: SkillsSettings = field(default_factory=SkillsSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    suggestions: SuggestionSettings = field(default_factory=SuggestionSettings)
    sessions: SessionSettings = field(default_factory=SessionSettings)
    mcp: McpSettings = field(default_factory=McpSettings)
    # Text appended to the system prompt (--append-system-prompt).
    append_system_prompt: str = ""
    # Action id -> key (F1 lists the ids); a clash is reported at start.
    keymap: dict[str, str] = field(default_factory=dict)
    # Model requests one prompt may make (tool rounds included) before the turn stops.
    max_turns: int = 50
    # The scripted local model of make demo, labelled DEMO everywhere.
    demo: bool = False
    # Hooks of every layer, each tagged with the file it came from (layers add up, they do not replace).
    hooks: list[dict[str, Any]] = field(default_factory=list, metadata={"internal": True})
    # MCP servers by name, raw as written (``mcpServers``), each tagged ``"_layer": "user"|"project"`` and
    # ``"_file"``; a later layer's entry replaces an earlier one of the same name. Checked by app.mcp.config.
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict, metadata={"internal": True})
    # What the project layer would change and whether it was applied (it is only in a trusted folder).
    project_layer: ProjectLayer = field(default_factory=ProjectLayer, metadata={"internal": True})
    # Which layer set each permission list and the approval mode (lists replace, they do not add up).
    permission_sources: dict[str, str] = field(default_factory=dict, metadata={"internal": True})
    # The command-line flags given to load_settings, so the same settings can be loaded again (after /trust).
    cli_flags: dict[str, Any] = field(default_factory=dict, metadata={"internal": True})
    # Not settings: what loading found out.
    sources: list[str] = field(default_factory=list, metadata={"internal": True})
    warnings: list[str] = field(default_factory=list, metadata={"internal": True})

    @property
    def has_endpoint(self) -> bool:
        return bool(self.model.base_url and self.model.name)


# Environment variables and the setting each one fills. OPENAI_* are the names Qwen Code reads.
ENV_VARS: dict[str, str] = {
    "OPENAI_BASE_URL": "model.base_url",
    "OPENAI_API_KEY": "model.api_key",
    "OPENAI_MODEL": "model.name",
    "AGENTCTX_CONTEXT_WINDOW": "model.context_window",
    "AGENTCTX_APPROVAL_MODE": "approval_mode",
    "AGENTCTX_MEMORY_SEMANTIC": "memory.semantic",
}


def load_settings(
    paths: Paths,
    flags: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    *,
    trusted: bool | None = None,
) -> Settings:
    """Merge every layer into one Settings; raises SettingsError for unreadable files.

    ``trusted`` says whether the project layer applies; unset, the folder trust the
    user recorded for the project root decides (nothing is trusted on fresh user data).
    """
    settings = Settings()
    env = os.environ if env is None else env
    settings.cli_flags = dict(flags or {})
    user = read_settings_file(paths.user_settings_file)
    if user is not None:
        _apply_layer(settings, user, str(paths.user_settings_file), "user")
    _project_layer(settings, paths, env, trusted)
    env_layer: dict[str, Any] = {}
    for var, dotted in ENV_VARS.items():
        value = env.get(var, "").strip()
        if value:
            _set_dotted(env_layer, dotted, value)
    _note_permission_sources(settings, env_layer, "environment (AGENTCTX_APPROVAL_MODE)")
    with _origin_of_pct(settings, "environment"):
        _apply(settings, env_layer, "environment", settings.warnings, coerce_strings=True)
    if flags:
        layer: dict[str, Any] = {}
        for dotted, value in flags.items():
            if value is not None:
                _set_dotted(layer, dotted, value)
        _note_permission_sources(settings, layer, "command line")
        with _origin_of_pct(settings, "command line"):
            _apply(settings, layer, "command line", settings.warnings)
    if settings.approval_mode not in APPROVAL_MODES:
        settings.warnings.append(
            f"approval_mode {settings.approval_mode!r} is not one of {', '.join(APPROVAL_MODES)}; using 'default'"
        )
        settings.approval_mode = "default"
    if settings.shell.sandbox not in SANDBOX_MODES:
        settings.warnings.append(f"shell.sandbox {settings.shell.sandbox!r} is not one of {', '.join(SANDBOX_MODES)}; using 'auto'")
        settings.shell.sandbox = "auto"
    return settings


def _apply_layer(settings: Settings, data: dict[str, Any], source: str, layer: str) -> None:
    settings.sources.append(source)
    _note_permission_sources(settings, data, f"{layer} settings ({source})")
    settings.hooks.extend(_hook_entries(data.pop("hooks", None), source, layer, settings.warnings))
    _merge_mcp_servers(settings, data, source, layer)
    with _origin_of_pct(settings, source):
        _apply(settings, data, source, settings.warnings)


def _note_permission_sources(settings: Settings, data: dict[str, Any], label: str) -> None:
    permissions = data.get("permissions")
    for kind in ("allow", "ask", "deny"):
        if isinstance(permissions, dict) and kind in permissions:
            settings.permission_sources[kind] = label
    if "approval_mode" in data or "approvalMode" in data:
        settings.permission_sources["approval_mode"] = label


def _project_layer(settings: Settings, paths: Paths, env: Any, trusted: bool | None) -> None:
    """Read the project's settings files; apply them only in a trusted folder, describe them always."""
    found: list[tuple[str, dict[str, Any], list[str]]] = []
    unreadable: list[str] = []
    # In the home directory ~/.qwen/settings.json is Qwen Code's *user* file, not a repository's.
    qwen_json = paths.project_settings_json.exists() and not _is_home(paths.project_root)
    if trusted is None:
        from app.trust import FolderTrust

        # Read the trust file only when the folder brings something to trust.
        exists = qwen_json or paths.project_settings_file.exists()
        trusted = exists and FolderTrust(paths.config_dir).is_trusted(paths.project_root)
    if qwen_json:
        from app.qwen_settings import read_qwen_settings

        try:
            # Only a trusted folder's file may read the environment ($VAR references, envKey).
            data, ignored = read_qwen_settings(paths.project_settings_json, dict(env) if trusted else {})
        except SettingsError as error:
            if trusted:
                raise
            data, ignored = None, []
            unreadable.append(str(error))
        if data is not None:
            found.append((str(paths.project_settings_json), data, ignored))
    try:
        data = read_settings_file(paths.project_settings_file)
    except SettingsError as error:
        # An untrusted folder's file is not ours to complain about at length: it is not used anyway.
        if trusted:
            raise
        data = None
        unreadable.append(str(error))
    if data is not None:
        found.append((str(paths.project_settings_file), data, []))
    record = ProjectLayer(trusted=bool(trusted))
    merged: dict[str, Any] = {}
    for source, data, ignored in found:
        record.files.append(source)
        _merge(merged, data)
        if trusted:
            if ignored:
                settings.warnings.append(f"{source}: Qwen Code settings with no meaning here (ignored): {', '.join(ignored)}")
            _apply_layer(settings, copy.deepcopy(data), source, "project")
    record.changes = describe_layer(merged)
    for problem in unreadable:
        record.files.append(problem.split(":", 1)[0])
        record.changes.append(f"a settings file that cannot be read: {problem}")
    settings.project_layer = record


def _is_home(folder: Path) -> bool:
    try:
        return folder.resolve() == Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return False


def _merge(target: dict[str, Any], data: dict[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict) and key not in ("hooks",):
            _merge(target[key], value)
        elif key == "hooks" and isinstance(value, dict) and isinstance(target.get(key), dict):
            for event, entries in value.items():
                existing = target[key].get(event)
                target[key][event] = (existing + entries) if isinstance(existing, list) and isinstance(entries, list) else entries
        else:
            target[key] = value


@contextlib.contextmanager
def _origin_of_pct(settings: Settings, source: str) -> Iterator[None]:
    """Remember which layer set compaction.pct, so /context can say where the thresholds came from."""
    before = settings.compaction.pct
    yield
    if settings.compaction.pct != before:
        settings.compaction.pct_source = source


def _hook_entries(raw: Any, source: str, layer: str, warnings: list[str]) -> list[dict[str, Any]]:
    """``hooks: {Event: [{matcher, command, timeout}]}`` as flat entries tagged with where they came from."""
    if raw is None:
        return []
    if not isinstance(raw, dict):
        warnings.append(f"{source}: 'hooks' must be a mapping of event names to lists (ignored)")
        return []
    entries: list[dict[str, Any]] = []
    for event, items in raw.items():
        if not isinstance(items, list):
            warnings.append(f"{source}: 'hooks.{event}' must be a list (ignored)")
            continue
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                warnings.append(f"{source}: 'hooks.{event}[{index}]' must be a mapping (ignored)")
                continue
            entries.append({**item, "event": str(event), "file": source, "layer": layer})
    return entries


def _merge_mcp_servers(settings: Settings, data: dict[str, Any], source: str, layer: str) -> None:
    """``mcpServers`` (Qwen Code's spelling) or ``mcp_servers``: whole entries, merged by server name."""
    for key in ("mcpServers", "mcp_servers"):
        raw = data.pop(key, None)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            settings.warnings.append(f"{source}: '{key}' must be a mapping of server names to settings (ignored)")
            continue
        for name, entry in raw.items():
            if not isinstance(entry, dict):
                settings.warnings.append(f"{source}: '{key}.{name}' must be a mapping (ignored)")
                continue
            settings.mcp_servers[str(name)] = {**entry, "_layer": layer, "_file": source}


def read_settings_file(path: Path) -> dict[str, Any] | None:
    """The mapping in a YAML settings file, None when it does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: is not UTF-8 text (bad byte at offset {exc.start})") from None
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SettingsError(f"{path}{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: the top level must be a mapping of settings, not {type(data).__name__}")
    return data


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for key in parents:
        target = target.setdefault(key, {})
    target[leaf] = value


def _apply(obj: Any, data: dict[str, Any], source: str, warnings: list[str], prefix: str = "", coerce_strings: bool = False) -> None:
    hints = typing.get_type_hints(type(obj))
    known = {f.name: f for f in dataclasses.fields(obj) if not f.metadata.get("internal")}
    for key, value in data.items():
        if key not in known and isinstance(key, str):
            key = _snake_case(key)  # Qwen Code's settings spell keys in camelCase (fileName)
        dotted = f"{prefix}{key}"
        if key not in known:
            warnings.append(f"{source}: unknown setting '{dotted}' (ignored)")
            continue
        hint = hints[key]
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                warnings.append(f"{source}: '{dotted}' must be a mapping (ignored)")
                continue
            _apply(current, value, source, warnings, prefix=f"{dotted}.", coerce_strings=coerce_strings)
            continue
        try:
            setattr(obj, key, _coerce(value, hint, coerce_strings))
        except (TypeError, ValueError) as exc:
            warnings.append(f"{source}: '{dotted}' {exc} (ignored)")


def _snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _coerce(value: Any, hint: Any, from_string: bool) -> Any:
    """Check (and for env strings, convert) a value against a field's type."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(value, inner[0], from_string)
    if origin is list:
        if isinstance(value, str):
            return [value]  # a single name where a list is expected, as Qwen Code allows
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TypeError("must be a list of strings")
        return list(value)
    if origin is dict:
        if not isinstance(value, dict):
            raise TypeError("must be a mapping")
        return {str(k): str(v) for k, v in value.items()}
    if hint is bool:
        if isinstance(value, bool):
            return value
        if from_string and str(value).lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return str(value).lower() in ("1", "true", "yes", "on")
        raise TypeError("must be true or false")
    if hint is int:
        if isinstance(value, bool):
            raise TypeError("must be an integer")
        if isinstance(value, int):
            return value
        if from_string:
            try:
                return int(str(value).replace("_", ""))
            except ValueError:
                raise ValueError(f"must be an integer, got {value!r}") from None
        raise TypeError(f"must be an integer, got {value!r}")
    if hint is float:
        if isinstance(value, bool):
            raise TypeError("must be a number")
        if isinstance(value, (int, float)):
            return float(value)
        if from_string:
            try:
                return float(value)
            except ValueError:
                raise ValueError(f"must be a number, got {value!r}") from None
        raise TypeError(f"must be a number, got {value!r}")
    if hint is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise TypeError("must be text")
    return value
