"""A memory file as listed: where it is, what it says, what is wrong with it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.context.memory.document import ParsedMemory
from app.context.memory.paths import MemoryScope, MemoryType


@dataclass(frozen=True)
class DocTerms:
    """One memory's term frequencies per field (title, description, body) and the fields' lengths in terms
    (app/context/memory/ranking.py computes them; the scope's cache file keeps them)."""

    fields: tuple[Mapping[str, int], Mapping[str, int], Mapping[str, int]]
    lengths: tuple[int, int, int]


@dataclass(frozen=True)
class MemoryEntry:
    scope: MemoryScope
    path: Path  # absolute, as listed (not resolved)
    rel_path: str  # relative to the scope root, with '/' separators
    document: ParsedMemory
    mtime: float  # seconds since the epoch
    size: int
    problems: tuple[str, ...] = ()  # the file's and the document's
    pinned: bool = False
    # The memory's search terms (DocTerms), computed on first use and kept with the parsed
    # entry, and in the scope's cache file, so neither a later turn nor a new process tokenises the
    # file again (tokenising is ~85 us a memory: 4.3 s for 50,000). Not part of equality.
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
