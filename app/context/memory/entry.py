"""A memory file as listed: where it is, what it says, what is wrong with it.

Entries arranged for reading (``group_entries``, ``filter_entries``): grouped by scope, then by type, and filtered by words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.context.memory.document import ParsedMemory
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope, MemoryType


@dataclass(frozen=True)
class DocTerms:
    """One memory's term frequencies per field (title, description, body) and the fields' lengths in terms
    (app/context/memory/ranking.py computes them; the scope's cache file keeps them)."""

    fields: tuple[Mapping[str, int], Mapping[str, int], Mapping[str, int]]
    lengths: tuple[int, int, int]


@dataclass(frozen=True)
class MemoryEntry:
    """One memory file as listed: its scope and path, its parsed document and what is wrong with it."""

    scope: MemoryScope
    path: Path  # absolute, as listed (not resolved); a str is accepted (see _PathField)
    rel_path: str  # relative to the scope root, with '/' separators
    document: ParsedMemory
    mtime: float  # seconds since the epoch
    size: int
    problems: tuple[str, ...] = ()  # the file's and the document's
    pinned: bool = False
    # The memory's search terms (DocTerms), computed on first use and kept with the parsed
    # entry, and in the scope's cache file, so neither a later turn nor a new process tokenises the
    # file again (tokenising is ~85 us a memory: 4.3 s for 50,000); from the cache file they are a
    # row of its term segment (term_segment.CachedTerms). Not part of equality.
    terms: object = field(default=None, compare=False, repr=False)

    @property
    def type(self) -> MemoryType | None:
        return self.document.type

    @property
    def title(self) -> str:
        return self.document.title

    @property
    def name(self) -> str:
        return self.document.name

    @property
    def description(self) -> str:
        return self.document.description

    @property
    def body(self) -> str:
        return self.document.body

    @property
    def usable(self) -> bool:
        """Has one of the four types; only usable entries are indexed and recalled."""
        return self.document.type is not None

    @property
    def topic(self) -> str:
        """The first directory of the relative path (``feedback`` for ``feedback/x.md``)."""
        head, sep, _ = self.rel_path.partition("/")
        return head if sep else ""


class _PathField:
    """MemoryEntry.path, kept as given (a ``str`` from the scope's cache file, or a Path) and made a
    Path on first read. Building 50,000 Path objects costs ~20 us each (pathlib parses every
    part), a second of a new process's listing, for paths that are mostly never looked at.
    A data descriptor, so it wins over the instance dict the dataclass __init__ writes through."""

    def __get__(self, entry: object, owner: type | None = None) -> Path:
        if entry is None:
            return self  # type: ignore[return-value]
        value = entry.__dict__["_path"]
        if type(value) is str:
            value = entry.__dict__["_path"] = Path(value)
        return value

    def __set__(self, entry: object, value: Path | str) -> None:
        entry.__dict__["_path"] = value


MemoryEntry.path = _PathField()  # type: ignore[assignment,misc]  # after @dataclass: it must not read as a default


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
    """The entries of one scope and one type, as the memory panel and ``memory list`` show them."""

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
