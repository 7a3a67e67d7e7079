"""Listing the memory files of one scope root.

Never raises for a bad file: an unreadable file, a symlink that leaves the root,
a file name with control characters, all become entries with problems. The
walk does not follow directory symlinks, skips hidden names (atomic writes
leave ``.name.tmp`` files for a moment) and the root's own MEMORY.md.
"""

from __future__ import annotations

import os
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


def scan_scope(root: Path, scope: MemoryScope) -> list[MemoryEntry]:
    """Every ``.md`` memory file under ``root``, sorted by relative path (code-unit order)."""
    if not root.is_dir():
        return []
    real_root = os.path.realpath(root)
    entries = [_entry(root, real_root, scope, path) for path in _markdown_files(root)]
    entries.sort(key=lambda e: utf16_sort_key(e.rel_path))
    return entries


def _markdown_files(root: Path) -> list[Path]:
    found: list[Path] = []
    pending: list[tuple[Path, int]] = [(root, 0)]
    while pending and len(found) < MAX_SCAN_FILES:
        directory, depth = pending.pop()
        try:
            with os.scandir(directory) as listing:
                items = list(listing)
        except OSError:
            continue
        for item in items:
            if item.name.startswith("."):
                continue
            if _is_dir(item):
                if depth + 1 < MAX_SCAN_DEPTH:
                    pending.append((Path(item.path), depth + 1))
            elif item.name.endswith(".md") and not (depth == 0 and item.name == INDEX_FILENAME):
                found.append(Path(item.path))
    return found[:MAX_SCAN_FILES]


def _is_dir(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir(follow_symlinks=False)
    except OSError:
        return False


def read_entry(root: Path, scope: MemoryScope, path: Path) -> MemoryEntry:
    """The entry for one file under ``root``."""
    return _entry(root, os.path.realpath(root), scope, path)


def _entry(root: Path, real_root: str, scope: MemoryScope, path: Path) -> MemoryEntry:
    rel_path = path.relative_to(root).as_posix()
    problems: list[str] = []
    if has_control_characters(rel_path):
        problems.append("the file name contains control characters (a line break, a tab...)")
    pinned = rel_path.startswith(PINNED_DIRNAME + "/")
    if path.is_symlink() and not is_auto_mem_path(real_root, os.path.realpath(path)):
        problems.append("a symlink to a file outside the memory directory; it was not read")
        return _unusable_entry(scope, path, rel_path, problems, pinned)
    try:
        stat = path.stat()
        content = read_capped(path)
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
        mtime=stat.st_mtime,
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
