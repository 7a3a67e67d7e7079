"""Replacing the built-in prompt with a file (AGENTCTX_SYSTEM_MD) and writing it out (AGENTCTX_WRITE_SYSTEM_MD)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.context.prompt.env_path import resolve_path_from_env
from app.fsutil import atomic_write_text
from app.paths import QWEN_DIR

SYSTEM_MD_ENV = "AGENTCTX_SYSTEM_MD"
WRITE_SYSTEM_MD_ENV = "AGENTCTX_WRITE_SYSTEM_MD"
SYSTEM_MD_NAME = "system.md"


class SystemPromptError(Exception):
    """The configured system prompt file cannot be used; the session should not start with a wrong prompt."""


def default_system_md_path(cwd: Path) -> Path:
    return cwd / QWEN_DIR / SYSTEM_MD_NAME


def _configured_path(variable: str, env: Mapping[str, str], *, cwd: Path, home: Path | None) -> Path | None:
    # A switch means the default file; a path means that file; off, unset or unresolvable means none.
    resolved = resolve_path_from_env(env.get(variable), home=home, cwd=cwd)
    if resolved.value is None or resolved.is_disabled:
        return None
    return default_system_md_path(cwd) if resolved.is_switch else Path(resolved.value)


def system_md_path(env: Mapping[str, str], *, cwd: Path, home: Path | None) -> Path | None:
    """The file that replaces the built-in prompt, or None to use the built-in one."""
    return _configured_path(SYSTEM_MD_ENV, env, cwd=cwd, home=home)


def write_target(env: Mapping[str, str], *, cwd: Path, home: Path | None) -> Path | None:
    """Where the base prompt should be written, or None when writing is off."""
    return _configured_path(WRITE_SYSTEM_MD_ENV, env, cwd=cwd, home=home)


def read_system_md(path: Path) -> str:
    if not path.exists():
        raise SystemPromptError(f"missing system prompt file '{path}'")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemPromptError(f"cannot read system prompt file '{path}': {exc}") from exc


def write_system_md(path: Path, text: str) -> str | None:
    """Write ``text`` to ``path`` (parents created); a warning instead of an exception when that fails."""
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        return f"Could not write the system prompt to '{path}': {exc}"
    return None
