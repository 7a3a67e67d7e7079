"""What the agents may touch in memory: the write guard, the memory agents' tool verdicts, what a run wrote.

The guard on every write into memory, by the main agent and by the memory agents.

Memories are read back into later prompts (and team memory is committed for
everyone to read), so what would land in a memory file is checked before the
tool runs, and a refusal says why in the tool result, so the agent can fix it:

- a secret (the scanner's rules) in any scope refuses the write; the matched
  value is never repeated, only the kind of secret;
- a topic file must parse: frontmatter with a name, a description and one of
  the four types (read by the one frontmatter parser, document.py), in the
  folder of its type (``type: user`` belongs in ``user/``);
- a team root that fails its security check refuses every team write.

Whether the main agent wrote memory files itself during a turn (``writes_to_memory``):

When it did (the person said "remember this"), extracting memories from the
same turn again would only duplicate them.

What the background memory agents (extraction, dreaming) may do with their tools
(``memory_agent_decision``):

A shell command passes only when the read-only analysis clears it, with every
path it reads inside the memory roots;
edits and writes pass only inside the memory roots they are given (the
project and user roots for extraction, the project root for dreaming, where
the pinned directory stays read-only). Team memory is never among them: it is
committed, so writing it keeps asking the person. The verdict is merged with
the session's own, the stricter winning.

Which topics (memory types) a run touched, worked out from the paths it wrote
(``touched_topics_from_file_paths``):

The extraction and dream agents are not asked to report what they changed;
their writes say it. Windows paths may arrive with either slash, so both sides
are compared with ``/``, and a root must be followed by ``/`` so that
``/x/memory-other/...`` is not taken for ``/x/memory/...``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Any

from app.context.memory.document import parse_memory_text
from app.context.memory.paths import (
    AUTO_MEMORY_TYPES,
    INDEX_FILENAME,
    PINNED_DIRNAME,
    MemoryPaths,
    MemoryScope,
    TeamMemoryRootSecurityError,
    check_team_root,
    is_auto_mem_path,
    is_team_auto_mem_path,
    realpath_nearest_existing,
)
from app.context.memory.secrets import describe_findings, scan
from app.core.tools.base import ToolContext
from app.core.tools.shell_readonly import read_only_refusal

MEMORY_WRITE_TOOLS = frozenset({"write_file", "edit", "replace", "create_file"})
MEMORY_PATH_ARGUMENT_KEYS = ("file_path", "path", "target_file")


def written_path(tool_name: str, arguments: Mapping[str, Any] | str) -> str | None:
    """The file a writing tool call targets, or None for any other call."""
    if tool_name not in MEMORY_WRITE_TOOLS:
        return None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return None
    if not isinstance(arguments, Mapping):
        return None
    for key in MEMORY_PATH_ARGUMENT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def writes_to_memory(calls: Iterable[tuple[str, Mapping[str, Any] | str]], paths: MemoryPaths, cwd: Path | None = None) -> bool:
    """Whether any ``(tool name, arguments)`` call writes into the project, user or team memory."""
    base = cwd or paths.workspace_root
    roots = (paths.project_root, paths.user_root, paths.team_root)
    for name, arguments in calls:
        target = written_path(name, arguments)
        if target is None:
            continue
        absolute = Path(target) if Path(target).is_absolute() else base / target
        if any(is_auto_mem_path(root, absolute) for root in roots):
            return True
    return False

FORMAT_HINT = (
    "A memory file starts with frontmatter:\n---\nname: <a short name>\ndescription: <one specific line>\n"
    "type: <user | feedback | project | reference>\n---\n<the fact>\nand sits in the <type>/ folder of its scope. "
    "Fix it and write it again."
)


def _content_after(tool_name: str, path: Path, args: dict[str, Any]) -> str:
    if tool_name != "edit":
        return str(args.get("content") or "")
    try:
        current = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        current = ""
    old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
    return current.replace(old, new) if old else current + new


def memory_file_problems(text: str, rel_path: str) -> list[str]:
    """Why ``text`` cannot be used as the memory file at ``rel_path`` ([] when it can)."""
    document = parse_memory_text(text)
    problems = list(document.problems)
    if document.type is not None:
        if not document.name:
            problems.append("the frontmatter has no name")
        if not document.description:
            problems.append("the frontmatter has no description (it decides whether the memory is recalled)")
        folder = rel_path.split("/", 1)[0] if "/" in rel_path else ""
        if folder in AUTO_MEMORY_TYPES and folder != document.type.value:
            problems.append(f"its type is {document.type.value} but it is in {folder}/; put it in {document.type.value}/")
        elif folder not in AUTO_MEMORY_TYPES and folder != "pinned":
            problems.append(f"it is not in a type folder; put it in {document.type.value}/")
    return problems


def _scope_through_links(mem: MemoryPaths, path: Path) -> MemoryScope | None:
    if is_team_auto_mem_path(mem.team_root, path):
        return MemoryScope.TEAM
    try:
        real = realpath_nearest_existing(path)
    except (OSError, RuntimeError):
        return None
    return _resolved(mem).scope_of(real)


def _resolved(mem: MemoryPaths) -> MemoryPaths:
    return replace(
        mem,
        project_root=Path(realpath_nearest_existing(mem.project_root)),
        user_root=Path(realpath_nearest_existing(mem.user_root)),
        team_root=Path(realpath_nearest_existing(mem.team_root)),
    )


def memory_write_refusal(mem: MemoryPaths, tool_name: str, args: dict[str, Any], base: Path) -> str | None:
    """The refusal for a write into a memory directory, or None when it may go ahead (or is not one)."""
    target = written_path(tool_name, args)
    if target is None:
        return None
    path = Path(os.path.abspath(target if os.path.isabs(target) else base / target))
    scope = mem.scope_of(path)
    if scope is None:
        # Judged where the write would really land: a (dangling) symlink outside that points into a
        # memory directory is a decoy, and is checked like a write there.
        scope = _scope_through_links(mem, path)
        if scope is None:
            return None
        path = Path(realpath_nearest_existing(path))
        mem = _resolved(mem)
    if scope is MemoryScope.TEAM:
        try:
            check_team_root(mem.workspace_root, mem.team_root)
        except TeamMemoryRootSecurityError as exc:
            return f"The write to team memory was refused: {exc}."
    content = _content_after(tool_name, path, args)
    findings = scan(content)
    if findings:
        where = (
            "Team memory is committed with the repository"
            if scope is MemoryScope.TEAM
            else f"{scope.value.capitalize()} memory is read into later prompts"
        )
        return (
            f"The write to {scope.value} memory was refused and nothing was written: {path.name} would hold what looks "
            f"like a secret ({describe_findings(findings)}). {where}; keep credentials out of it (say where the "
            "credential is kept instead, e.g. the vault entry's name)."
        )
    root = mem.root(scope)
    rel_path = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    if path.suffix != ".md" or rel_path == INDEX_FILENAME:
        return None
    problems = memory_file_problems(content, rel_path)
    if problems:
        return f"The memory file {rel_path} was not written: {'; '.join(problems)}. {FORMAT_HINT}"
    return None


def team_secret_refusal(mem: MemoryPaths, tool_name: str, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """The main agent's guard (kept under its old name): every scope is checked now, not only team."""
    return memory_write_refusal(mem, tool_name, args, ctx.root)

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


def merge_decisions(*decisions: ScopedDecision) -> ScopedDecision:
    return max(decisions, default=ScopedDecision.DEFAULT)


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

def touched_topics_from_file_paths(file_paths: Iterable[str | Path], roots: Iterable[str | Path]) -> list[str]:
    """The distinct types, in order of first write, of the paths under one of ``roots``."""
    prefixes = [_slashed(root).rstrip("/") + "/" for root in roots]
    topics: list[str] = []
    for file_path in file_paths:
        path = _slashed(file_path)
        for prefix in prefixes:
            if path.startswith(prefix):
                topic = path[len(prefix) :].split("/", 1)[0]
                if topic in AUTO_MEMORY_TYPES and topic not in topics:
                    topics.append(topic)
                break
    return topics


def _slashed(path: str | Path) -> str:
    return str(path).replace("\\", "/")
