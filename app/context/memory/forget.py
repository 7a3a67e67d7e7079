"""Forgetting: choosing the memory entries a request is about, then removing them.

The two steps are separate so the person can confirm in between: selection
returns candidates with their paths and deletes nothing; apply_forget deletes
(or rewrites, for one bullet of several) and rebuilds the indexes.

What a confirmed forget will do to each file: delete it, or take some of its entries out.

The person confirms exactly this, so it follows apply_forget's own rule: a file
loses only the chosen bullets while others remain, and goes whole otherwise.

The entries inside one memory's body (``bullet_entries``, ``remove_entries``).

A memory usually says one thing, but a body may list several facts as
top-level bullets; forgetting one of them should keep the others. A body
with two or more top-level bullets holds one entry per bullet (with its
indented continuation lines); any other body is a single entry.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import field
from app.dataclass import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from app.context.memory.document import render_with_frontmatter
from app.context.memory.entry import MemoryEntry
from app.context.memory.index import rebuild_index
from app.context.memory.paths import MemoryScope
from app.context.memory.schedule import read_meta, write_meta
from app.context.memory.store import MemoryStore
from app.core.llm.errors import LLMError
from app.core.llm.provider import Provider
from app.core.llm.side_query import side_query
from app.templates import package_template

_BULLET = re.compile(r"^[-*+][ \t]+(\S.*)$")


@dataclass(frozen=True)
class BodyEntry:
    """One top-level bullet of a memory's body, with its indented continuation lines."""

    summary: str  # the bullet's first line
    text: str  # the bullet with its continuation lines
    first_line: int
    end_line: int  # exclusive


def bullet_entries(body: str) -> list[BodyEntry]:
    """The top-level bullets of ``body``; fewer than two means the body is one entry."""
    lines = body.split("\n")
    spans: list[list[int]] = []
    for number, line in enumerate(lines):
        if _BULLET.match(line):
            spans.append([number, number + 1])
        elif spans and line.strip() and line[:1] in " \t" and spans[-1][1] == number:
            spans[-1][1] = number + 1
    if len(spans) < 2:
        return []
    return [
        BodyEntry(
            summary=_BULLET.match(lines[start]).group(1).strip(),  # type: ignore[union-attr]
            text="\n".join(lines[start:end]),
            first_line=start,
            end_line=end,
        )
        for start, end in spans
    ]


def remove_entries(body: str, summaries: Iterable[str]) -> tuple[str, int, int]:
    """``body`` without the bullets whose summary matches one of ``summaries`` (ignoring case).

    Returns the new body, how many bullets were removed and how many remain.
    """
    wanted = {summary.strip().lower() for summary in summaries}
    entries = bullet_entries(body)
    doomed = [entry for entry in entries if entry.summary.lower() in wanted]
    drop = {number for entry in doomed for number in range(entry.first_line, entry.end_line)}
    kept_lines = [line for number, line in enumerate(body.split("\n")) if number not in drop]
    new_body = re.sub(r"\n{3,}", "\n\n", "\n".join(kept_lines)).strip()
    return new_body, len(doomed), len(entries) - len(doomed)

log = logging.getLogger(__name__)

FORGET_TIMEOUT_SECONDS = 8.0
DEFAULT_FORGET_LIMIT = 5
FORGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "selectedCandidateIds": {"type": "array", "items": {"type": "string"}},
        "reasoning": {"type": "string"},
    },
    "required": ["selectedCandidateIds"],
    "additionalProperties": False,
}


class ForgetSelectorError(ValueError):
    """The model's choice is unusable (selection then falls back to text matching)."""


@dataclass(frozen=True)
class ForgetCandidate:
    """Something a forget request may be about: a whole memory file, or one bullet of a body that lists several."""

    id: str
    entry: MemoryEntry
    summary: str
    text: str
    bullet: int | None = None  # which bullet of a several-bullet body; None: the whole file

    @property
    def path(self) -> Path:
        return self.entry.path


@dataclass(frozen=True)
class ForgetSelection:
    """The candidates chosen for a forget request, and how: by the model, by text matching, or none at all."""

    strategy: str  # model | heuristic | none
    candidates: tuple[ForgetCandidate, ...] = ()
    reasoning: str | None = None
    fallback_reason: str | None = None

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys(c.path for c in self.candidates))


@dataclass(frozen=True)
class ForgetResult:
    """What apply_forget did: the files deleted or rewritten, the topics touched, and a sentence for the person."""

    removed: int  # entries
    deleted: tuple[Path, ...] = ()
    rewritten: tuple[Path, ...] = ()
    topics: tuple[str, ...] = ()
    message: str = ""
    problems: tuple[str, ...] = field(default=())


def forget_candidates(entries: Iterable[MemoryEntry]) -> list[ForgetCandidate]:
    """One candidate per entry of each file: its bullets when it lists several, else the whole file.

    Ids are the relative path (``relPath:<i>`` for bullet ``i``), prefixed with the
    scope for anything outside the project scope.
    """
    candidates: list[ForgetCandidate] = []
    for entry in entries:
        if not (entry.body or entry.title or entry.description):
            continue
        base = entry.rel_path if entry.scope is MemoryScope.PROJECT else f"{entry.scope.value}:{entry.rel_path}"
        bullets = bullet_entries(entry.body)
        if not bullets:
            summary = entry.description or entry.title or entry.body.split("\n", 1)[0]
            text = f"{entry.title}\n{entry.description}\n{entry.body}"
            candidates.append(ForgetCandidate(base, entry, summary, text))
            continue
        for number, bullet in enumerate(bullets):
            candidates.append(ForgetCandidate(f"{base}:{number}", entry, bullet.summary, bullet.text, number))
    return candidates


def match_forget_candidates(query: str, candidates: Sequence[ForgetCandidate], limit: int = DEFAULT_FORGET_LIMIT) -> list[ForgetCandidate]:
    """The fallback: candidates whose text holds the query (case and spacing ignored)."""
    needle = _collapse(query)
    if not needle or limit <= 0:
        return []
    return [c for c in candidates if needle in _collapse(c.text)][:limit]


def forget_request_prompt(query: str, candidates: Sequence[ForgetCandidate]) -> str:
    lines = [f"- {c.id} [{c.entry.type.value if c.entry.type else 'unknown'}] {c.entry.title}: {_one_line(c.summary)}" for c in candidates]
    return f"Request: {query.strip()}\n\nCandidates:\n" + "\n".join(lines)


def parse_forget_answer(answer: Any, candidates: Sequence[ForgetCandidate], limit: int) -> tuple[list[ForgetCandidate], str | None]:
    """The chosen candidates (at most ``limit``) and the model's reasoning. Raises ForgetSelectorError."""
    ids = answer.get("selectedCandidateIds") if isinstance(answer, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise ForgetSelectorError("Forget selector must return selectedCandidateIds array")
    by_id = {c.id: c for c in candidates}
    chosen = []
    for candidate_id in dict.fromkeys(i.strip() for i in ids):
        if candidate_id not in by_id:
            raise ForgetSelectorError(f"Unknown candidate id: {candidate_id}")
        chosen.append(by_id[candidate_id])
    reasoning = answer.get("reasoning")
    return chosen[:limit], reasoning if isinstance(reasoning, str) else None


async def select_forget_candidates(
    query: str,
    entries: Sequence[MemoryEntry],
    *,
    provider: Provider | None = None,
    limit: int = DEFAULT_FORGET_LIMIT,
    timeout: float = FORGET_TIMEOUT_SECONDS,
) -> ForgetSelection:
    """The entries ``query`` asks to forget. Deletes nothing. Pass the main model's provider:
    picking what to delete deserves the better model."""
    candidates = forget_candidates(entries)
    if not query.strip() or not candidates or limit <= 0:
        return ForgetSelection("none")
    if provider is None:
        return _fallback(query, candidates, limit)
    try:
        answer = await side_query(
            provider,
            system=Template(_system_template()).substitute(limit=limit),
            prompt=forget_request_prompt(query, candidates),
            schema=FORGET_SCHEMA,
            timeout=timeout,
            temperature=0.0,
        )
        chosen, reasoning = parse_forget_answer(answer, candidates, limit)
    except (LLMError, ForgetSelectorError) as error:
        return _fallback(query, candidates, limit, str(error))
    except Exception as error:  # forgetting still works by text when the model side breaks
        log.warning("memory forget selector failed: %s", error, exc_info=True)
        return _fallback(query, candidates, limit, f"{type(error).__name__}: {error}")
    return ForgetSelection("model", tuple(chosen), reasoning)


def apply_forget(store: MemoryStore, targets: Sequence[ForgetCandidate | Path | str], *, now: float | None = None) -> ForgetResult:
    """Remove what the person confirmed: whole files for paths and single-entry candidates,
    single bullets for bullet candidates. Then bump ``updatedAt`` and rebuild the indexes."""
    now = time.time() if now is None else now
    by_file: dict[Path, list[ForgetCandidate | None]] = {}
    for target in targets:
        if isinstance(target, ForgetCandidate):
            by_file.setdefault(target.path, []).append(target)
        else:
            by_file.setdefault(Path(target), []).append(None)
    removed, deleted, rewritten, topics, scopes, problems = 0, [], [], [], set(), []
    for path, chosen in by_file.items():
        scope, absolute = store.confine(path)
        if not absolute.is_file():
            problems.append(f"{absolute} was already gone")
            continue
        entry = store.read(absolute)
        count = _forget_in_file(store, entry, chosen)
        (deleted if not absolute.exists() else rewritten).append(absolute)
        removed += count
        scopes.add(scope)
        topic = f"{entry.topic}/" if entry.topic else entry.rel_path
        if topic not in topics:
            topics.append(topic)
    if scopes:
        meta_file = store.paths.meta_file
        write_meta(meta_file, read_meta(meta_file).touched(now))
        for scope in sorted(scopes, key=lambda s: list(MemoryScope).index(s)):
            rebuild_index(store.paths, scope, removed=deleted)
    return ForgetResult(
        removed, tuple(deleted), tuple(rewritten), tuple(topics), forget_message(removed, topics), tuple(problems)
    )


def forget_message(count: int, topics: Sequence[str]) -> str:
    noun = "entry" if count == 1 else "entries"
    return f"Managed auto-memory forgot {count} {noun} from: {', '.join(topics)}"


def _forget_in_file(store: MemoryStore, entry: MemoryEntry, chosen: list[ForgetCandidate | None]) -> int:
    """Forget the chosen parts of one file; returns how many entries went."""
    bullets = [c for c in chosen if c is not None and c.bullet is not None]
    whole = len(bullets) < len(chosen)
    frontmatter = entry.document.frontmatter_text
    if whole or frontmatter is None or not bullets:
        store.delete(entry.path)
        return max(1, len(bullet_entries(entry.body)))
    body, gone, remaining = remove_entries(entry.body, (c.summary for c in bullets))
    if remaining == 0:
        store.delete(entry.path)
    else:
        store.write_text(entry.path, render_with_frontmatter(frontmatter, body))
    return gone


def _fallback(query: str, candidates: Sequence[ForgetCandidate], limit: int, reason: str | None = None) -> ForgetSelection:
    chosen = match_forget_candidates(query, candidates, limit)
    return ForgetSelection("heuristic" if chosen or reason else "none", tuple(chosen), None, reason)


def _collapse(text: str) -> str:
    return " ".join(text.lower().split())


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


@lru_cache(maxsize=1)
def _system_template() -> str:
    return package_template("app.context.memory", "forget_selector").strip()


@dataclass(frozen=True)
class ForgetPreviewItem:
    """What a confirmed forget will do to one file: delete it, or take some of its bullets out."""

    entry: MemoryEntry
    whole_file: bool
    removed: tuple[str, ...] = ()  # the bullets' first lines, when the file stays
    total: int = 0  # how many entries the file holds

    @property
    def path(self) -> Path:
        return self.entry.path


def forget_preview(candidates: Sequence[ForgetCandidate]) -> list[ForgetPreviewItem]:
    by_file: dict[Path, list[ForgetCandidate]] = {}
    for candidate in candidates:
        by_file.setdefault(candidate.path, []).append(candidate)
    return [_item(chosen) for chosen in by_file.values()]


def _item(chosen: list[ForgetCandidate]) -> ForgetPreviewItem:
    entry = chosen[0].entry
    if any(c.bullet is None for c in chosen) or entry.document.frontmatter_text is None:
        return ForgetPreviewItem(entry, whole_file=True)
    wanted = {c.summary.strip().lower() for c in chosen}
    bullets = bullet_entries(entry.body)
    if all(b.summary.lower() in wanted for b in bullets):
        return ForgetPreviewItem(entry, whole_file=True)
    return ForgetPreviewItem(entry, whole_file=False, removed=tuple(c.summary for c in chosen), total=len(bullets))


def describe_item(item: ForgetPreviewItem, shown_path: str) -> str:
    """``<path> — the whole file`` or ``<path> — 1 of its 3 entries (the file stays): “...”``."""
    if item.whole_file:
        return f"{shown_path} — the whole file"
    quoted = ", ".join(f"“{summary}”" for summary in item.removed)
    return f"{shown_path} — {len(item.removed)} of its {item.total} entries (the file stays): {quoted}"
