"""Rebuilding a scope's MEMORY.md from its memory files, without destroying what a person wrote.

A new index is one pointer line per memory, within 200 lines and 25,000
characters. When it must be cut, the oldest memories (by modification time)
are the ones left out, never the newest, and a warning line says so.

An index that exists is merged, never regenerated: every line that is not a
link (a note, a heading, a blank line) stays where it is, byte for byte; a link
to a memory that is missing stays too (the memory panel flags it); a link line
in the program's own format is updated when its memory's title or description
changed; memories no line links to get a line at the end. The only line
removed is the one for a file the program itself just removed (a forget, a
dream's merge). An index over the limits is never cut: the prompt loads its
head with a warning (see prompt_index.py).

The team index is committed, so it must come out byte-identical on every
machine: lines sort by code unit, memories with the same description share one
line, an unchanged index is not rewritten (no empty commits), and its root must
not be a symlink or lead outside the repository.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from urllib.parse import unquote
from dataclasses import dataclass, field
from pathlib import Path

from app.context.memory.entry import MemoryEntry
from app.context.memory.index_line import (
    INDEX_SEPARATOR,
    encode_index_path_target,
    index_line,
    limit_index_line,
)
from app.context.memory.kinds import MemoryScope
from app.context.memory.paths import MemoryPaths, check_team_root
from app.context.memory.prompt_index import MAX_INDEX_BYTES, MAX_INDEX_LINES, index_cut_reason  # noqa: F401 (limits re-exported)
from app.context.memory.reading import read_text_no_follow
from app.context.memory.scan import scan_scope
from app.context.memory.textunits import utf16_len, utf16_sort_key
from app.fsutil import atomic_write_text
from app.paths import ensure_private_dir

INDEX_CUT_WARNING = (
    "\n\n> WARNING: MEMORY.md is too large; only part of it was written. "
    "Keep index entries concise and move detail into topic files."
)
_TRAILING_PUNCTUATION = re.compile(r"[.,;:!?)\]}'\"`]+$")


@dataclass(frozen=True)
class IndexLine:
    text: str
    mtime: float  # the newest of the memories the line points to
    paths: tuple[Path, ...] = ()


@dataclass(frozen=True)
class IndexText:
    text: str
    kept: int
    dropped: tuple[IndexLine, ...] = ()

    @property
    def cut(self) -> bool:
        return bool(self.dropped)


@dataclass(frozen=True)
class IndexWrite:
    path: Path
    index: IndexText
    written: bool  # False when the file already held exactly this text
    entries: tuple[MemoryEntry, ...] = field(default=(), repr=False)


def index_lines(entries: Sequence[MemoryEntry]) -> list[IndexLine]:
    """One line per usable memory, in relative-path (code-unit) order."""
    usable = sorted((e for e in entries if e.usable), key=lambda e: utf16_sort_key(e.rel_path))
    return [
        IndexLine(limit_index_line(_line_for(entry)), entry.mtime, (entry.path,))
        for entry in usable
    ]


def team_index_lines(entries: Sequence[MemoryEntry]) -> list[IndexLine]:
    """Like index_lines, but memories with the same description share their first one's line."""
    usable = sorted((e for e in entries if e.usable), key=lambda e: utf16_sort_key(e.rel_path))
    groups: dict[str, list[MemoryEntry]] = {}
    order: list[list[MemoryEntry]] = []
    for entry in usable:
        key = normalized_description(entry.description)
        if key and key in groups:
            groups[key].append(entry)
            continue
        group = [entry]
        order.append(group)
        if key:
            groups[key] = group
    lines = []
    for group in order:
        text = _line_for(group[0])
        if len(group) > 1:
            text += f" (also: {', '.join(encode_index_path_target(e.rel_path) for e in group[1:])})"
        lines.append(IndexLine(limit_index_line(text), max(e.mtime for e in group), tuple(e.path for e in group)))
    return lines


def normalized_description(description: str) -> str:
    """The grouping key: lower case, whitespace collapsed and trimmed, trailing punctuation dropped."""
    collapsed = " ".join(description.lower().split())
    return _TRAILING_PUNCTUATION.sub("", collapsed)


def assemble_index(lines: Sequence[IndexLine]) -> IndexText:
    """The index text within the line and size limits, dropping the oldest lines first."""
    kept = list(lines)
    dropped: list[IndexLine] = []
    size = _joined_size(kept)
    if len(kept) > MAX_INDEX_LINES or size > MAX_INDEX_BYTES:
        # Oldest first; of two equally old, the later line goes first.
        positions = sorted(range(len(kept)), key=lambda i: (kept[i].mtime, -i))
        removed: set[int] = set()
        count = len(kept)
        for position in positions:
            if count <= MAX_INDEX_LINES and size <= MAX_INDEX_BYTES:
                break
            removed.add(position)
            count -= 1
            size -= utf16_len(kept[position].text) + (1 if count else 0)
        dropped = [line for i, line in enumerate(kept) if i in removed]
        kept = [line for i, line in enumerate(kept) if i not in removed]
    text = "\n".join(line.text for line in kept)
    if dropped:
        text += INDEX_CUT_WARNING
    return IndexText(text=text, kept=len(kept), dropped=tuple(dropped))


def index_file_text(index: IndexText) -> str:
    """What goes in the file: the index and a final newline (nothing at all when empty)."""
    return index.text + "\n" if index.text else ""


_LINK_TARGET = re.compile(r"\]\(([^()\s]+)\)")
_ALSO = re.compile(r" \(also: ([^()]*)\)")
# A line in the program's own format: "- [title](target) — description".
_PROGRAM_LINE = re.compile(r"^- \[[^\n]*\]\([^()\s]+\)" + INDEX_SEPARATOR + ".*$")
_OLD_CUT_WARNING = INDEX_CUT_WARNING.strip()


def link_targets(line: str) -> list[str]:
    """The relative paths a line links to (decoded), the first one first; [] for any other line."""
    stripped = line.lstrip()
    if not stripped.startswith(("- ", "* ", "+ ")):
        return []
    found = [match.group(1) for match in _LINK_TARGET.finditer(line)][:1]
    also = _ALSO.search(line)
    if found and also:
        found += [part.strip() for part in also.group(1).split(",") if part.strip()]
    return [unquote(target, errors="surrogateescape") for target in found]


def merge_index(existing: str, lines: Sequence[IndexLine], root: Path, removed: Iterable[str] = ()) -> str:
    """``existing`` with link lines added and updated (see the module docstring); ``removed`` holds
    the relative paths of files the program removed, whose lines go too."""
    by_path: dict[str, IndexLine] = {}
    for line in lines:
        for path in line.paths:
            by_path[Path(path).relative_to(root).as_posix() if Path(path).is_absolute() else str(path)] = line
    gone = set(removed)
    out: list[str] = []
    linked: set[int] = set()  # ids of generated lines some existing line already stands for
    for text in existing.split("\n"):
        targets = link_targets(text)
        if not targets:
            if text.strip() != _OLD_CUT_WARNING:  # the cut warning older versions wrote is theirs to remove
                out.append(text)
            continue
        if targets[0] in gone and _PROGRAM_LINE.match(text):
            continue
        fresh = next((by_path[t] for t in targets if t in by_path), None)
        if fresh is None:
            out.append(text)  # a missing memory, or a hand-made link: kept as written
            continue
        if id(fresh) in linked and _PROGRAM_LINE.match(text):
            continue  # a duplicate of a line already kept
        linked.add(id(fresh))
        out.append(fresh.text if _PROGRAM_LINE.match(text) else text)
    missing = [line for line in lines if id(line) not in linked]
    if missing:
        while out and out[-1] == "":
            out.pop()
        out.extend(line.text for line in missing)
        out.append("")
    return "\n".join(out)


def index_problems(paths: MemoryPaths, scope: MemoryScope | str) -> list[str]:
    """What the memory panel flags about a scope's MEMORY.md: links to missing files, size past the limits."""
    scope = MemoryScope(scope)
    root, target = paths.root(scope), paths.index_file(scope)
    text = read_text_no_follow(target)
    if not text:
        return []
    problems = []
    for number, line in enumerate(text.split("\n"), 1):
        for rel in link_targets(line)[:1]:
            if not os.path.lexists(root / rel):
                problems.append(f"{target.name} line {number} links to {rel}, which does not exist (the line is kept; edit or remove it)")
    trimmed = text.strip()
    count, size = len(trimmed.split("\n")), utf16_len(trimmed)
    if count > MAX_INDEX_LINES or size > MAX_INDEX_BYTES:
        reason = index_cut_reason(count, size, over_lines=count > MAX_INDEX_LINES, over_size=size > MAX_INDEX_BYTES)
        problems.append(f"{target.name} is {reason}: only its head is loaded into the prompt; move detail into topic files")
    return problems


def rebuild_index(paths: MemoryPaths, scope: MemoryScope | str, *, removed: Iterable[Path | str] = ()) -> IndexWrite:
    """Bring the scope's MEMORY.md in step with its files (merging into an existing one). ``removed``:
    files the program itself just deleted. A team root that fails the security check raises
    TeamMemoryRootSecurityError before anything is read."""
    scope = MemoryScope(scope)
    root = paths.root(scope)
    if scope is MemoryScope.TEAM:
        check_team_root(paths.workspace_root, root)
    entries = scan_scope(root, scope)
    lines = team_index_lines(entries) if scope is MemoryScope.TEAM else index_lines(entries)
    target = paths.index_file(scope)
    existing = read_text_no_follow(target)
    if existing is not None and existing.strip():
        gone = [os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/") for p in removed]
        text = merge_index(existing, lines, root, gone)
        index = IndexText(text=text.rstrip("\n"), kept=len(lines))
        if text == existing:
            return IndexWrite(target, index, written=False, entries=tuple(entries))
    else:
        index = assemble_index(lines)
        text = index_file_text(index)
        if existing == text:
            return IndexWrite(target, index, written=False, entries=tuple(entries))
    if scope is not MemoryScope.TEAM:
        ensure_private_dir(root)
    # atomic_write_text renames over the index, so a symlink planted in its place is
    # replaced, never written through.
    atomic_write_text(target, text)
    return IndexWrite(target, index, written=True, entries=tuple(entries))


def _line_for(entry: MemoryEntry) -> str:
    fallback = entry.type.value if entry.type else ""
    return index_line(entry.title, entry.rel_path, entry.description, fallback)


def _joined_size(lines: Sequence[IndexLine]) -> int:
    if not lines:
        return 0
    return sum(utf16_len(line.text) for line in lines) + len(lines) - 1

