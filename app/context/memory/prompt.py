"""What memory puts into a request: the system prompt's memory section, and the recalled memories' reminder.

The auto-memory section of the system prompt, and how it joins the user memory:

The section teaches the model the memory protocol and shows each scope's
MEMORY.md. While every index is empty a condensed version stands in, which
costs far fewer tokens for a person who has not saved anything yet.

Recalled memories go in a system reminder placed before the person's request (``recall_reminder``),
and are read back from a sent request for the gauge (``recall_in_request``).

Each memory says how old it is, in words a model reasons with (``memory_age``).

Models do date arithmetic poorly: a bare timestamp does not make one wonder
whether a memory is stale, "47 days ago" does. Times are seconds since the epoch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from app.dataclass import dataclass
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING

from app.context.memory.paths import (
    AUTO_MEMORY_TYPES,
    EMPTY_INDEX_TEXT,
    INDEX_FILENAME,
    MemoryPaths,
    MemoryScope,
    TeamMemoryRootSecurityError,
    check_team_root,
    read_text_no_follow,
)
from app.context.memory.textunits import utf16_len, utf16_prefix
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
        if not raw:  # no index yet: nothing to clean (the cleaners and the scanner are not even loaded)
            indexes.append(ScopeIndex(scope, paths.root(scope)))
            continue
        if scope is MemoryScope.TEAM:
            raw = clean_shared_index(raw)
        from app.context.untrusted import clean_for_prompt

        # Every index line goes through the scanner and loses markup that could pass for ours.
        clean = clean_for_prompt(raw)
        indexes.append(ScopeIndex(scope, paths.root(scope), clean.text, clean.findings))
    return indexes


def clean_shared_index(content: str) -> str:
    """A committed index may have been written by hand, by anyone with push access: each line loses the
    control and invisible characters that our own index lines never carry."""
    from app.context.memory.index import clean_index_text

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
    if index.empty:  # the index module (its writer, its limits) loads only for an index with text
        body = EMPTY_INDEX_TEXT
    else:
        from app.context.memory.index import index_for_prompt

        body = index_for_prompt(index.content)
    if index.scope is MemoryScope.TEAM and not index.empty:
        from app.context.untrusted import fence_repository_text

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

SECONDS_PER_DAY = 86_400


def memory_age_days(mtime: float, now: float) -> int:
    """Whole days since ``mtime``; never negative (a clock skewed into the future reads as today)."""
    return max(0, math.floor((now - mtime) / SECONDS_PER_DAY))


def memory_age(mtime: float, now: float) -> str:
    days = memory_age_days(mtime, now)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    return f"{days} days ago"


def memory_freshness_text(mtime: float, now: float) -> str:
    """A caution for memories older than a day; empty otherwise."""
    days = memory_age_days(mtime, now)
    if days <= 1:
        return ""
    return (
        f"This memory is {days} days old. Memories are point-in-time observations, not live state "
        "\u2014 claims about code behavior or file:line citations may be outdated. "
        "Verify against current code before asserting as fact."
    )


def memory_freshness_note(mtime: float, now: float) -> str:
    """The caution wrapped as a system reminder, or empty."""
    text = memory_freshness_text(mtime, now)
    return f"<system-reminder>{text}</system-reminder>\n" if text else ""

# The secret scanner and the untrusted-text cleaners load when an index has text to clean (a
# session with no memory yet builds its prompt without them).
if TYPE_CHECKING:
    from app.context.memory.entry import MemoryEntry
    from app.context.memory.secrets import SecretFinding
    from app.core.request import AssembledRequest

MAX_DOC_BODY_CHARS = 1200
RELEVANT_MEMORY_HEADING = "## Relevant memory"
RELEVANT_MEMORY_INTRO = (
    "Use the following memories only when they are directly relevant to the current request. "
    "Verify file/function claims before relying on them."
)
EMPTY_BODY_TEXT = "_No detailed entries yet._"
# What an older version wrote into a memory that had nothing in it yet.
PLACEHOLDER_BODY = "_No entries yet._"
TRUNCATED_BODY_NOTE = "\n\n> NOTE: Relevant memory truncated for prompt budget."
# How the memories were chosen, said in one line so /context detail (and the record) can show it.
RECALL_PATHS = {
    "heuristic": "keyword ranking (BM25F)",
    "fused": "keyword ranking (BM25F) fused with semantic similarity",
    "model": "the memory selector model",
}
RECALLED_BY = "Recalled by "


# Short names of the paths for the gauge, where every cell counts.
RECALL_PATH_LABELS = {"heuristic": "BM25F", "fused": "BM25F + semantic", "model": "selector"}


@dataclass(frozen=True)
class RecallSeen:
    """What recall put into one request: the memories (title and relative path) and by which path."""

    memories: tuple[tuple[str, str], ...]
    paths: tuple[str, ...]  # "heuristic", "model", or a label an older record used


def recall_in_request(request: AssembledRequest) -> RecallSeen:
    """The memories the current turn's recall reminders carry in ``request`` (a reminder follows
    the person's message it was recalled for, so those after the last such message are this turn's)."""
    users = [p.message_index for p in request.parts if p.kind == "user" and p.message_index is not None]
    boundary = users[-1] if users else -1
    memories: list[tuple[str, str]] = []
    paths: list[str] = []
    by_label = {label: key for key, label in RECALL_PATHS.items()}
    for part in request.parts:
        if part.kind != "recalled_memory" or part.message_index is None or part.message_index <= boundary:
            continue
        how = _RECALLED_BY_LINE.search(part.text)
        for label in how.group(1).split(" and ") if how else ():
            key = by_label.get(label, label)
            if key not in paths:
                paths.append(key)
        memories.extend((m.group(1), m.group(2)) for m in _ENTRY_LINE.finditer(part.text))
    return RecallSeen(tuple(memories), tuple(paths))


_RECALLED_BY_LINE = re.compile(r"^" + RECALLED_BY + r"(.+)\.$", re.MULTILINE)
_ENTRY_LINE = re.compile(r"^### (.*?) \(([^()\n]*)\)$", re.MULTILINE)


def render_relevant_memory(entries: Sequence[MemoryEntry], now: float, how: str = "") -> str:
    """The recalled memories as Markdown; empty when there are none."""
    if not entries:
        return ""
    lines = [RELEVANT_MEMORY_HEADING, "", RELEVANT_MEMORY_INTRO, ""]
    if how:
        # "heuristic+model": this turn's keyword pick with the selector's pick carried from the last turn.
        said = " and ".join(RECALL_PATHS.get(path, path) for path in str(how).split("+"))
        lines[-1:-1] = [f"{RECALLED_BY}{said}."]
    for entry in entries:
        lines.extend(_render_entry(entry, now))
    return "\n".join(lines).rstrip() + "\n"


def recall_reminder(entries: Sequence[MemoryEntry], now: float, how: str = "") -> str:
    """The memories wrapped in ``<system-reminder>`` tags; empty when there are none."""
    text = render_relevant_memory(entries, now, how)
    return f"<system-reminder>\n{text.rstrip()}\n</system-reminder>" if text else ""


def prompt_body(body: str) -> str:
    """The body as shown: the empty-body text, or the body cut to 1,200 characters with a note."""
    text = body.strip()
    if not text or text == PLACEHOLDER_BODY:
        return EMPTY_BODY_TEXT
    if utf16_len(text) > MAX_DOC_BODY_CHARS:
        return utf16_prefix(text, MAX_DOC_BODY_CHARS).rstrip() + TRUNCATED_BODY_NOTE
    return text


def _render_entry(entry: MemoryEntry, now: float) -> list[str]:
    from app.context.untrusted import neutralise  # loaded with recall, which imported it already
    # A memory's text cannot close the reminder it sits in, nor pass for an instruction file's frame.
    title = " ".join(neutralise(entry.title).split())
    lines = [f"### {title} ({neutralise(entry.rel_path or entry.path.name)})", f"Saved {memory_age(entry.mtime, now)}."]
    if entry.description:
        lines.append(" ".join(neutralise(entry.description).split()))
    lines += ["", neutralise(prompt_body(entry.body))]
    freshness = memory_freshness_text(entry.mtime, now)
    if freshness:
        lines += ["", f"> NOTE: {freshness}"]
    lines.append("")
    return lines
