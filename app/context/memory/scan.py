"""Listing the memory files of one scope root.

Never raises for a bad file: an unreadable file, a symlink that leaves the root,
a file name with control characters, all become entries with problems. The
walk does not follow directory symlinks, skips hidden names (atomic writes
leave ``.name.tmp`` files for a moment) and the root's own MEMORY.md.

Recall lists every memory on every turn, so a parsed entry is kept and reused
while the file's ``lstat`` (inode, size, mtime, ctime) is unchanged; like git's
index, a file changed less than a second before it was read is never reused
(a coarse clock could give the next write the same times). Symlinks are always
read again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from app.context.memory.document import ParsedMemory, parse_memory_text
from app.context.memory.entry import MemoryEntry
from app.context.memory.kinds import AUTO_MEMORY_TYPES, MemoryScope
from app.context.memory.paths import INDEX_FILENAME, PINNED_DIRNAME, is_auto_mem_path
from app.context.memory.reading import read_capped
from app.context.memory.slug import has_control_characters
from app.context.memory.textunits import utf16_sort_key

# Type directories sit one level down; a little more leaves room for the
# pinned directory and hand-made grouping without walking a whole tree.
MAX_SCAN_DEPTH = 4
# A scope with more files than this is broken; listing stops rather than stall.
MAX_SCAN_FILES = 20_000
# A file changed this recently when it was read is read again next time.
RACY_NS = 1_000_000_000
# Parsed entries are kept for this many scope roots (the project's, the person's, team memory...).
MAX_CACHED_ROOTS = 8

_Stamp = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns


@dataclass(frozen=True)
class _Found:
    path: str
    rel_path: str  # with '/' separators
    is_symlink: bool
    stamp: _Stamp | None = None


# (root as given, its real path, scope) -> {file path: (stamp, entry)}; replaced whole on each scan,
# so it holds only files that still exist.
_parsed: dict[tuple[str, str, str], dict[str, tuple[_Stamp, MemoryEntry]]] = {}


def scan_scope(root: Path, scope: MemoryScope) -> list[MemoryEntry]:
    """Every ``.md`` memory file under ``root``, sorted by relative path (code-unit order)."""
    if not root.is_dir():
        return []
    real_root = os.path.realpath(root)
    key = (str(root), real_root, scope.value)
    previous = _parsed.pop(key, {})
    current: dict[str, tuple[_Stamp, MemoryEntry]] = {}
    entries = [_cached_entry(previous, current, real_root, scope, found) for found in _markdown_files(root)]
    while len(_parsed) >= MAX_CACHED_ROOTS:
        _parsed.pop(next(iter(_parsed)))
    _parsed[key] = current
    entries.sort(key=lambda e: utf16_sort_key(e.rel_path))
    return entries


def clear_scan_cache() -> None:
    """Forget every parsed entry (the next listing reads every file)."""
    _parsed.clear()


def _cached_entry(
    previous: dict[str, tuple[_Stamp, MemoryEntry]],
    current: dict[str, tuple[_Stamp, MemoryEntry]],
    real_root: str,
    scope: MemoryScope,
    found: _Found,
) -> MemoryEntry:
    stamp = found.stamp
    if stamp is None or found.is_symlink:
        return _entry(real_root, scope, found)
    hit = previous.get(found.path)
    if hit is not None and hit[0] == stamp:
        current[found.path] = hit
        return hit[1]
    read_at = time.time_ns()
    entry = _entry(real_root, scope, found)
    if max(stamp[2], stamp[3]) < read_at - RACY_NS:
        current[found.path] = (stamp, entry)
    return entry


def read_entry(root: Path, scope: MemoryScope, path: Path) -> MemoryEntry:
    """The entry for one file under ``root``."""
    found = _Found(str(path), path.relative_to(root).as_posix(), path.is_symlink())
    return _entry(os.path.realpath(root), scope, found)


def _markdown_files(root: Path) -> list[_Found]:
    found: list[_Found] = []
    pending: list[tuple[str, str, int]] = [(str(root), "", 0)]
    while pending and len(found) < MAX_SCAN_FILES:
        directory, prefix, depth = pending.pop()
        try:
            with os.scandir(directory) as listing:
                items = list(listing)
        except OSError:
            continue
        for item in items:
            name = item.name
            if name.startswith("."):
                continue
            if _is_dir(item):
                if depth + 1 < MAX_SCAN_DEPTH:
                    pending.append((item.path, f"{prefix}{name}/", depth + 1))
            elif name.endswith(".md") and not (depth == 0 and name == INDEX_FILENAME):
                symlink = _is_symlink(item)
                found.append(_Found(item.path, prefix + name, symlink, None if symlink else _stamp(item)))
    return found[:MAX_SCAN_FILES]


def _stamp(item: os.DirEntry[str]) -> _Stamp | None:
    try:
        stat = item.stat(follow_symlinks=False)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _is_dir(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_symlink(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_symlink()
    except OSError:
        return False


def _entry(real_root: str, scope: MemoryScope, found: _Found) -> MemoryEntry:
    rel_path, path = found.rel_path, Path(found.path)
    problems: list[str] = []
    if has_control_characters(rel_path):
        problems.append("the file name contains control characters (a line break, a tab...)")
    pinned = rel_path.startswith(PINNED_DIRNAME + "/")
    if found.is_symlink and not is_auto_mem_path(real_root, os.path.realpath(found.path)):
        problems.append("a symlink to a file outside the memory directory; it was not read")
        return _unusable_entry(scope, path, rel_path, problems, pinned)
    try:
        content = read_capped(found.path)
    except OSError as error:
        problems.append(f"the file could not be read: {error.strerror or error}")
        return _unusable_entry(scope, path, rel_path, problems, pinned)
    document = parse_memory_text(content.text)
    problems.extend(content.problems)
    problems.extend(document.problems)
    folder = rel_path.split("/", 1)[0] if "/" in rel_path else ""
    if document.type is not None and folder in AUTO_MEMORY_TYPES and folder != document.type.value:
        problems.append(f"the file is in {folder}/ but its type is {document.type.value}")
    return MemoryEntry(
        scope=scope,
        path=path,
        rel_path=rel_path,
        document=document,
        mtime=content.mtime,
        size=content.size,
        problems=tuple(problems),
        pinned=pinned,
    )


def _unusable_entry(scope: MemoryScope, path: Path, rel_path: str, problems: list[str], pinned: bool) -> MemoryEntry:
    try:
        mtime = path.lstat().st_mtime
    except OSError:
        mtime = 0.0
    document = ParsedMemory(type=None, name="", title="", description="", body="")
    return MemoryEntry(scope, path, rel_path, document, mtime, 0, tuple(problems), pinned)
