"""The files that control the agent itself, which it must not rewrite without asking.

Settings (``.qwen/settings.*``), skills (``.qwen/skills/``), rules (``.qwen/rules/``,
instruction text like QWEN.md), ``.agents/``, the whole
of ``.git/`` (config, hooks: both run programs) and the instruction files
``QWEN.md`` / ``AGENTS.md`` / ``CLAUDE.md`` at any directory level. A write to one
of them asks in every mode short of yolo, auto-edit included, and is never
remembered as "always" — otherwise one approved edit could switch approvals
off for the rest of the session (Claude Code protects its settings the same way).

The user's own config directory (``$AGENTCTX_HOME/config``, or platformdirs'
``agentctx``) is a control as a whole: its settings, hooks, skills and the list of
trusted folders — an agent that could write that could trust a folder for you.

Names are compared case-insensitively (macOS and Windows file systems are), and
both as written and where symlinks lead.
"""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

from app.paths import user_config_dir

if TYPE_CHECKING:  # the agent imports REASON on every start; the shell analysis loads with the first command
    from app.core.tools.shell_wrappers import Analysis

CONTROL_DIRS = (".git", ".agents")
INSTRUCTION_FILES = ("qwen.md", "agents.md", "claude.md")
REASON = "writes to the agent's own controls always ask"
UNKNOWN_WORD_REASON = (
    "a word of this command is known only when it runs and could name one of the agent's own controls; "
    "writes to them always ask"
)


def names_control(path: str, root: Path | None) -> bool:
    """Whether ``path`` (absolute, or relative to ``root``) is or is inside one of the controls."""
    if not path:
        return False
    if _lexically_control(path):
        return True
    base = root or Path.cwd()
    full = path if os.path.isabs(path) else os.path.join(base, path)
    try:
        real = _realpath_nearest(full)
    except (OSError, ValueError):
        return True  # cannot tell where it leads: treat it as a control
    if _inside(real, os.path.realpath(user_config_dir())):
        return True
    if root is not None:
        try:
            relative = os.path.relpath(real, os.path.realpath(root))
        except ValueError:
            relative = real
        return _lexically_control(relative if not relative.startswith("..") else real)
    return _lexically_control(real)


def command_touches_controls(analysis: Analysis, root: Path | None) -> str | None:
    """Why a command may write a control: it names one (word, option value, redirection),
    runs ``git config``, or holds a word known only when it runs. None when it cannot.
    """
    unknown = False
    for simple in analysis.commands:
        for word in simple.assignment_words + simple.argv_words:
            if word.dynamic:
                # "$D/conf*" or "$(echo .gi)t/*": a glob that is also known only when it runs
                # could name anything; the pattern's text says nothing about where it leads.
                unknown = True
            elif any(_candidate_matches(piece, root, glob=word.glob) for piece in _pieces(word.text)):
                return REASON
        for redirect in simple.redirects:
            if redirect.word is not None and not redirect.word.known:
                unknown = True
            elif redirect.word is not None and names_control(redirect.target, root):
                return REASON
    for invocation in analysis.invocations:
        args = [w.text for w in invocation.words[1:] if not w.text.startswith("-")]
        if invocation.name == "git" and args[:1] == ["config"]:
            return REASON
    return UNKNOWN_WORD_REASON if unknown else None


def _pieces(text: str) -> list[str]:
    """A word and, for ``--opt=VALUE`` and ``NAME=VALUE``, the value."""
    pieces = [text]
    if "=" in text:
        pieces.append(text.split("=", 1)[1])
    return pieces


def _candidate_matches(text: str, root: Path | None, *, glob: bool) -> bool:
    if glob:
        return _glob_could_name_control(text)
    return names_control(text, root)


def _glob_could_name_control(pattern: str) -> bool:
    parts = [p for p in pattern.replace("\\", "/").split("/") if p]
    names = [*CONTROL_DIRS, ".qwen", *INSTRUCTION_FILES]
    return any(fnmatch(name, part.lower()) for part in parts for name in names)


def _lexically_control(path: str) -> bool:
    parts = [p.lower() for p in os.path.normpath(path.replace("\\", "/")).split("/") if p not in ("", ".")]
    for index, part in enumerate(parts):
        if part in CONTROL_DIRS:
            return True
        if part == ".qwen" and index + 1 < len(parts):
            following = parts[index + 1]
            if following in ("skills", "rules") or following.startswith("settings."):
                return True
    return bool(parts) and parts[-1] in INSTRUCTION_FILES


def _realpath_nearest(path: str) -> str:
    """Where ``path`` leads, resolving the part of it that exists."""
    head, tail = os.path.normpath(path), ""
    while head and not os.path.lexists(head):
        head, name = os.path.split(head)
        tail = os.path.join(name, tail) if tail else name
        if not name:
            break
    real = os.path.realpath(head) if head else ""
    return os.path.join(real, tail) if tail else real


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
