"""What the background memory agents (extraction, dreaming) may do with their tools.

A shell command passes only when the read-only analysis clears it, with every
path it reads inside the memory roots;
edits and writes pass only inside the memory roots they are given (the
project and user roots for extraction, the project root for dreaming, where
the pinned directory stays read-only). Team memory is never among them: it is
committed, so writing it keeps asking the person. The verdict is merged with
the session's own, the stricter winning.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

from app.context.memory.paths import (
    PINNED_DIRNAME,
    is_auto_mem_path,
    realpath_nearest_existing,
)
from app.context.memory.writes import MEMORY_PATH_ARGUMENT_KEYS
from app.core.tools.shell_readonly import read_only_refusal

SHELL_TOOL = "run_shell_command"
FILE_WRITE_TOOLS = ("edit", "write_file")


class ScopedDecision(IntEnum):
    """Ordered by strictness, so merging is ``max``."""

    DEFAULT = 1
    ALLOW = 2
    ASK = 3
    DENY = 4


@dataclass(frozen=True)
class ScopedVerdict:
    decision: ScopedDecision
    label: str | None = None  # the rule named when denying
    reason: str | None = None


def memory_agent_decision(
    tool_name: str,
    arguments: Mapping[str, Any],
    roots: Sequence[Path],
    *,
    cwd: Path,
    protect_pinned: bool = False,
) -> ScopedVerdict:
    """The verdict for one tool call of a memory agent that may write only under ``roots``."""
    if tool_name == SHELL_TOOL:
        return _shell_verdict(arguments, roots, cwd)
    if tool_name in FILE_WRITE_TOOLS:
        return _write_verdict(tool_name, arguments, roots, cwd, protect_pinned)
    return ScopedVerdict(ScopedDecision.DEFAULT)


def _shell_verdict(arguments: Mapping[str, Any], roots: Sequence[Path], cwd: Path) -> ScopedVerdict:
    label = f"ManagedAutoMemory({SHELL_TOOL}: read-only only)"
    command = arguments.get("command")
    if not isinstance(command, str) or not command.strip():
        return ScopedVerdict(ScopedDecision.DENY, label, "no command was given")
    # Its reads too stay inside the memory directories, not just its writes.
    refusal = read_only_refusal(command, roots=roots, cwd=cwd)
    if refusal is not None:
        return ScopedVerdict(ScopedDecision.DENY, label, refusal)
    return ScopedVerdict(ScopedDecision.ALLOW)


def _write_verdict(tool_name: str, arguments: Mapping[str, Any], roots: Sequence[Path], cwd: Path, protect_pinned: bool) -> ScopedVerdict:
    label = f"ManagedAutoMemory({tool_name}: only within {' or '.join(str(r) for r in roots)})"
    target = next((arguments[k] for k in MEMORY_PATH_ARGUMENT_KEYS if isinstance(arguments.get(k), str) and arguments[k].strip()), None)
    if target is None:
        return ScopedVerdict(ScopedDecision.DENY, label, "no file path was given")
    absolute = os.path.abspath(os.path.join(cwd, target))
    for root in roots:
        # Both where the path says and where it leads: a symlink inside the root must not carry a write out.
        if is_auto_mem_path(root, absolute) and is_auto_mem_path(realpath_nearest_existing(root), realpath_nearest_existing(absolute)):
            if protect_pinned and is_auto_mem_path(Path(root) / PINNED_DIRNAME, absolute):
                return ScopedVerdict(ScopedDecision.DENY, label, "pinned memories are read-only")
            return ScopedVerdict(ScopedDecision.ALLOW)
    return ScopedVerdict(ScopedDecision.DENY, label, f"{absolute} is outside the memory directories")
