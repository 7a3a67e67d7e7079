"""The guard on every write into memory, by the main agent and by the memory agents.

Memories are read back into later prompts (and team memory is committed for
everyone to read), so what would land in a memory file is checked before the
tool runs, and a refusal says why in the tool result, so the agent can fix it:

- a secret (the scanner's rules) in any scope refuses the write; the matched
  value is never repeated, only the kind of secret;
- a topic file must parse: frontmatter with a name, a description and one of
  the four types (read by the one frontmatter parser, document.py), in the
  folder of its type (``type: user`` belongs in ``user/``);
- a team root that fails its security check refuses every team write.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.context.memory.document import parse_memory_text
from app.context.memory.kinds import AUTO_MEMORY_TYPES, MemoryScope
from app.context.memory.paths import (
    INDEX_FILENAME,
    PINNED_DIRNAME,
    MemoryPaths,
    TeamMemoryRootSecurityError,
    check_team_root,
    is_team_auto_mem_path,
    realpath_nearest_existing,
)
from app.context.memory.secrets import describe_findings, scan
from app.context.memory.writes import written_path
from app.core.tools.base import ToolContext

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
        elif folder not in AUTO_MEMORY_TYPES and folder != PINNED_DIRNAME:
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
