"""Memories arranged for reading: grouped by scope, then by type, and filtered by words."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope

SCOPE_TITLES = {
    MemoryScope.PROJECT: "Project memory",
    MemoryScope.USER: "User memory",
    MemoryScope.TEAM: "Team memory",
}
# Files without one of the four types are never recalled; they get a group of their own
# so their problems are seen rather than hidden among the working memories.
UNUSABLE_TOPIC = "not used"
TOPIC_ORDER = (*AUTO_MEMORY_TYPES, UNUSABLE_TOPIC)


@dataclass(frozen=True)
class MemoryGroup:
    scope: MemoryScope
    topic: str  # one of the four types, or UNUSABLE_TOPIC
    entries: tuple[MemoryEntry, ...]


def entry_topic(entry: MemoryEntry) -> str:
    return entry.type.value if entry.type is not None else UNUSABLE_TOPIC


def group_entries(entries: Iterable[MemoryEntry]) -> list[MemoryGroup]:
    """Scopes in their fixed order, types in theirs; entries keep the order they came in."""
    buckets: dict[tuple[MemoryScope, str], list[MemoryEntry]] = {}
    for entry in entries:
        buckets.setdefault((entry.scope, entry_topic(entry)), []).append(entry)
    keys = sorted(buckets, key=lambda key: (list(MemoryScope).index(key[0]), TOPIC_ORDER.index(key[1])))
    return [MemoryGroup(scope, topic, tuple(buckets[(scope, topic)])) for scope, topic in keys]


def entry_matches(entry: MemoryEntry, query: str) -> bool:
    """Every word of ``query`` appears somewhere in the memory (case ignored)."""
    haystack = "\n".join(
        (entry.scope.value, entry_topic(entry), entry.title, entry.description, entry.rel_path, entry.body)
    ).lower()
    return all(word in haystack for word in query.lower().split())


def filter_entries(entries: Sequence[MemoryEntry], query: str) -> list[MemoryEntry]:
    return [entry for entry in entries if entry_matches(entry, query)] if query.strip() else list(entries)
