"""The auto-memory section of the system prompt, and how it joins the user memory.

The section teaches the model the memory protocol and shows each scope's
MEMORY.md. While every index is empty a condensed version stands in, which
costs far fewer tokens for a person who has not saved anything yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from string import Template

from app.context.memory.index import clean_index_text
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope
from app.context.memory.paths import (
    INDEX_FILENAME,
    MemoryPaths,
    TeamMemoryRootSecurityError,
    check_team_root,
)
from app.context.memory.index import index_for_prompt
from app.context.memory.paths import read_text_no_follow
from app.context.memory.secrets import SecretFinding
from app.context.untrusted import clean_for_prompt, fence_repository_text
from app.templates import package_template

NUMBER_WORDS = ("zero", "one", "two", "three", "four")
SEPARATOR = "\n\n---\n\n"

_SCOPE_DESCRIPTIONS = {
    MemoryScope.PROJECT: "private to the person, for this project only",
    MemoryScope.USER: "private to the person, shared by all their projects",
    MemoryScope.TEAM: (
        "committed to git and read by everyone working on the repository: only what the whole team "
        "should know, never credentials; writes here ask the person first and are checked for secrets"
    ),
}


@dataclass(frozen=True)
class ScopeIndex:
    """One scope's root and the text of its MEMORY.md ('' when there is none)."""

    scope: MemoryScope
    root: Path
    content: str = ""
    findings: tuple[SecretFinding, ...] = ()  # secrets masked out of ``content``

    @property
    def empty(self) -> bool:
        return not self.content.strip()


def number_word(count: int) -> str:
    """Zero to four as words (the way the prompt reads); larger numbers as digits."""
    return NUMBER_WORDS[count] if 0 <= count < len(NUMBER_WORDS) else str(count)


def load_scope_indexes(paths: MemoryPaths, *, include_team: bool | None = None) -> list[ScopeIndex]:
    """The project, user and (when it exists and passes the security check) team indexes.

    ``include_team`` None means: when the team directory exists.
    """
    scopes = [MemoryScope.PROJECT, MemoryScope.USER]
    if include_team is None:
        include_team = paths.team_root.is_dir()
    if include_team and _team_root_is_safe(paths):
        scopes.append(MemoryScope.TEAM)
    indexes = []
    for scope in scopes:
        raw = read_text_no_follow(paths.index_file(scope)) or ""
        if scope is MemoryScope.TEAM:
            raw = clean_shared_index(raw)
        # Every index line goes through the scanner and loses markup that could pass for ours.
        clean = clean_for_prompt(raw)
        indexes.append(ScopeIndex(scope, paths.root(scope), clean.text, clean.findings))
    return indexes


def clean_shared_index(content: str) -> str:
    """A committed index may have been written by hand, by anyone with push access: each line loses the
    control and invisible characters that our own index lines never carry."""
    return "\n".join(clean_index_text(line) for line in content.split("\n"))


def build_memory_prompt(indexes: Sequence[ScopeIndex], *, force_full: bool = False) -> str:
    """The memory section for these scopes: the full protocol, or the condensed one when
    every index is empty and ``force_full`` is not set."""
    values = {
        "scope_count": number_word(len(indexes)),
        "type_count": number_word(len(AUTO_MEMORY_TYPES)),
        "scope_list": "\n".join(
            f"- {index.scope.value}: `{index.root}` ({_SCOPE_DESCRIPTIONS[index.scope]})" for index in indexes
        ),
        "indexes": "\n\n".join(render_scope_index(index) for index in indexes),
    }
    name = "memory_full" if force_full or any(not index.empty for index in indexes) else "memory_condensed"
    return Template(_template(name)).substitute(values).strip()


def render_scope_index(index: ScopeIndex) -> str:
    body = index_for_prompt(index.content)
    if index.scope is MemoryScope.TEAM and not index.empty:
        # Committed by anyone with push access: data about the project, never instructions.
        body = fence_repository_text(body, f"team memory index {index.root}/{INDEX_FILENAME}")
    return f"## {index.root}/{INDEX_FILENAME}\n\n{body}"


def memory_prompt(paths: MemoryPaths, *, force_full: bool = False, include_team: bool | None = None) -> str:
    """Read the indexes and build the section."""
    return build_memory_prompt(load_scope_indexes(paths, include_team=include_team), force_full=force_full)


def memory_prompt_and_findings(paths: MemoryPaths) -> tuple[str, list[tuple[Path, tuple[SecretFinding, ...]]]]:
    """The section, and each index file a secret was masked out of (to tell the person)."""
    indexes = load_scope_indexes(paths)
    found = [(index.root / INDEX_FILENAME, index.findings) for index in indexes if index.findings]
    return build_memory_prompt(indexes), found


def append_memory_prompt(user_memory: str | None, memory_prompt: str) -> str:
    """The user memory with the memory section after it: the section alone when the
    trimmed user memory is empty, else ``<trimmed>\\n\\n---\\n\\n<section>``."""
    trimmed = (user_memory or "").strip()
    if not memory_prompt.strip():
        return user_memory or ""
    if not trimmed:
        return memory_prompt
    return f"{trimmed}{SEPARATOR}{memory_prompt}"


def _team_root_is_safe(paths: MemoryPaths) -> bool:
    try:
        check_team_root(paths.workspace_root, paths.team_root)
    except TeamMemoryRootSecurityError:
        return False
    return True


def _template(name: str) -> str:
    return package_template("app.context.memory", name)
