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

The parsed entries are also kept in one cache file per scope (scan_cache.py:
columns and the memories' search terms, written atomically, in the user's data
directory, never in the repository), so a new process does not parse or
tokenise thousands of files again; an entry from it is used only when the
file's ``lstat`` still matches. Nothing is capped silently:
every file is listed, and a directory past walk.MAX_SCAN_DEPTH is named in
``scan_notes`` (shown by the memory panel and ``memory list``).
"""

from __future__ import annotations

import atexit
import bisect
import os
import time
from app.dataclass import dataclass
from operator import itemgetter
from pathlib import Path
from stat import S_ISDIR, S_ISLNK

from app.context.memory.document import ParsedMemory, parse_memory_text
from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope
from app.context.memory.paths import INDEX_FILENAME, PINNED_DIRNAME, is_auto_mem_path
from app.context.memory.paths import read_capped
from app.context.memory.paths import has_control_characters
from app.context.memory.scan_cache import Stamp as _Stamp
from app.context.memory.scan_cache import (  # cache_file and wait_for_cache_saves: also this module's API
    cache_file,
    listing_fingerprint,
    load_cache_file,
    save_cache_file,
    wait_for_cache_saves,  # noqa: F401
    write_cache,
)
from app.context.memory.textunits import utf16_sort_key
from app.context.memory.watch import ScopeWatcher

# A file changed this recently when it was read is read again next time.
RACY_NS = 1_000_000_000
# (walk.py, where the directories are walked, is imported by the first listing of a root that exists:
# a turn in a project without memories does not load it.)
# Parsed entries are kept for this many scope roots (the project's, the person's, team memory...).
MAX_CACHED_ROOTS = 8



@dataclass(frozen=True)
class _Found:
    """A file listed: where it is, whether it is a symlink, its stamp when it was stat-ed."""

    path: str
    rel_path: str  # with '/' separators
    is_symlink: bool
    stamp: _Stamp | None = None


@dataclass(frozen=True)
class ListingDelta:
    """What changed from the listing with version ``before`` to this one: entry objects that left it
    and ones that joined it (a changed file is both: its old entry removed, its new one added)."""

    before: tuple[object, ...]
    added: tuple[MemoryEntry, ...]
    removed: tuple[MemoryEntry, ...]


class MemoryListing(list[MemoryEntry]):
    """A listing's entries. ``version`` is the same for two listings only when they hold the same
    entry objects in the same order, so recall can skip re-checking 50,000 entries; ``delta``, when
    known, says how it differs from the listing of version ``delta.before``, so recall can apply
    the change instead of comparing every entry."""

    version: tuple[object, ...] = ()
    delta: ListingDelta | None = None


@dataclass
class _ScopeState:
    """What is kept of one scope root between listings, so the next one reads only what changed."""

    current: dict[str, tuple[_Stamp, MemoryEntry]]
    entries: tuple[MemoryEntry, ...]  # sorted
    volatile: dict[str, _Found]  # listed but not cached (symlinks, unreadable, read while racy): read every time
    dirs: dict[str, tuple[int, str, int]]  # every directory walked -> (its mtime_ns before it was listed, prefix, depth)
    walked_at: int  # time_ns of the last full walk
    generation: int
    watcher: ScopeWatcher | None = None
    trusted: bool = False  # a full walk ran after the watcher was ready
    delta: ListingDelta | None = None  # how ``generation`` differs from the one before it (watched updates)
    fingerprint: tuple[int, str] | None = None  # (generation, listing_fingerprint of that generation), once known
    began: int = 0  # time.monotonic_ns() when the last full walk began (see latest_listing)


_states: dict[tuple[str, str, str], _ScopeState] = {}
MAX_VOLATILE = 64
_generations = iter(range(1, 1 << 62))
_watching = False


def watch_scopes(enabled: bool = True) -> None:
    """Watch scope roots from now on (an interactive session), or stop every watcher."""
    global _watching
    _watching = enabled
    if not enabled:
        for state in _states.values():
            if state.watcher is not None:
                state.watcher.stop()
                state.watcher = None
                state.trusted = False


def scan_scope(root: Path, scope: MemoryScope) -> MemoryListing:
    """Every ``.md`` memory file under ``root``, sorted by relative path (code-unit order)."""
    if not root.is_dir():
        return _empty_listing()
    real_root = os.path.realpath(root)
    key = (str(root), real_root, scope.value)
    state = _states.get(key)
    if state is not None and state.trusted and state.watcher is not None:
        changed = state.watcher.take()
        if changed is not None:
            result = _update(state, real_root, scope, changed)
            if result is not None:
                return result
    return _full_scan(root, real_root, scope, key, state)


def latest_listing(root: Path, scope: MemoryScope, since: int = 0) -> MemoryListing | None:
    """The scope's last full listing as it was, without looking at any file, when it began at or
    after ``since`` (time.monotonic_ns); None otherwise. A listing that began after a question was
    asked saw every edit made before it, so it is as fresh as that question needs: a headless run
    reads its prompt before it builds anything, and its start-up listing (the index check) serves
    its one turn's recall instead of a second ``lstat`` of 50,000 files. ``since=0``: any listing
    of this process (warming caches up)."""
    state = _states.get((str(root), os.path.realpath(root), scope.value))
    return _listing(state) if state is not None and state.began >= since else None


def _full_scan(root: Path, real_root: str, scope: MemoryScope, key: tuple[str, str, str], state: _ScopeState | None) -> MemoryListing:
    previous = state.current if state is not None else load_cache_file(real_root, scope, str(root))
    current: dict[str, tuple[_Stamp, MemoryEntry]] = {}
    notes: list[str] = []
    dirs: dict[str, tuple[int, str, int]] = {}
    walked_at = time.time_ns()
    began = time.monotonic_ns()
    from app.context.memory.walk import walk_scope

    entries, changed = walk_scope(
        root, previous, current, notes, dirs,
        read_file=lambda path, rel, stamp: _cached_entry(previous, current, real_root, scope, _Found(path, rel, False, stamp)),
        read_other=lambda path, rel, is_symlink: _entry(real_root, scope, _Found(path, rel, is_symlink)),
    )
    volatile = {}
    if len(entries) != len(current):
        cached = {id(e) for _, e in current.values()}
        volatile = {str(e.path): _Found(str(e.path), e.rel_path, os.path.islink(e.path)) for e in entries if id(e) not in cached}
    _notes[real_root] = notes
    if state is None and not changed and current and current.keys() == previous.keys():
        _last_save.setdefault(key, time.monotonic())  # the cache file on disk is this listing: nothing to save yet
    if changed or current.keys() != previous.keys():
        _note_dirty(key, real_root, scope, current, _changed_count(previous, current) if changed else max(1, abs(len(current) - len(previous))))
    fingerprint: str | None = None
    if state is not None and not changed and not volatile and not state.volatile and len(state.entries) == len(entries) and current.keys() == previous.keys():
        ordered = state.entries  # nothing changed: the order is the same, and sorting 50,000 paths is not free
        generation = state.generation
        fingerprint = state.fingerprint[1] if state.fingerprint and state.fingerprint[0] == generation else None
    elif state is None and not changed and not volatile and current.keys() == previous.keys() and getattr(previous, "in_order", False):
        ordered = tuple(map(itemgetter(1), previous.values()))  # the cache file's rows, in the listing's order
        generation = next(_generations)
        fingerprint = getattr(previous, "fingerprint", None)
    else:
        entries.sort(key=lambda e: utf16_sort_key(e.rel_path))
        ordered = tuple(entries)
        generation = next(_generations)
    watcher = state.watcher if state is not None else None
    trusted = watcher is not None and watcher.ready
    if _watching and watcher is None:
        while len(_states) >= MAX_CACHED_ROOTS and key not in _states:
            _drop(next(iter(_states)))
        watcher = ScopeWatcher(root)  # trusted after its first report and the next full walk
    new_state = _ScopeState(
        current, ordered, volatile, dirs, walked_at, generation, watcher, trusted, fingerprint=(generation, fingerprint) if fingerprint else None, began=began
    )
    _states.pop(key, None)
    while len(_states) >= MAX_CACHED_ROOTS:
        _drop(next(iter(_states)))
    _states[key] = new_state
    return _listing(new_state)


def _update(state: _ScopeState, real_root: str, scope: MemoryScope, changed: set[str]) -> MemoryListing | None:
    """The listing from the watcher's report and the directories whose mtime moved; None when only
    a full walk can tell (a directory went away, or a relisted one was cut by a limit)."""
    since = state.generation
    moved: list[tuple[str, str, int]] = []
    for directory, (mtime, prefix, depth) in state.dirs.items():
        try:
            now = os.stat(directory).st_mtime_ns
        except OSError:
            return None
        # A directory changed within a clock tick of the walk may have changed again unseen.
        if now != mtime or mtime >= state.walked_at - RACY_NS:
            moved.append((directory, prefix, depth))
    if moved and not _relist_by_inode(state, real_root, scope, moved):
        return None
    if len(state.volatile) > MAX_VOLATILE:
        return None  # e.g. thousands of files written a moment ago: a walk is as cheap
    touched = [path for path in changed if path in state.current] + list(state.volatile)
    if not touched:
        return _listing(state)
    replaced: dict[int, MemoryEntry] = {}
    positions: dict[int, int] = {}
    for path in touched:
        hit = state.current.get(path)
        found = state.volatile.get(path)
        if hit is not None:
            stamp = _plain_file_stamp(path)
            if stamp is None:
                return None
            if stamp == hit[0]:
                continue
            found = _Found(path, hit[1].rel_path, False, stamp)
            del state.current[path]
            old = hit[1]
        elif found is not None:
            at = _position(state.entries, found.rel_path)
            if at is None:
                return None
            old = state.entries[at]
            if not found.is_symlink:
                stamp = _plain_file_stamp(path)
                if stamp is None:
                    return None
                found = _Found(path, found.rel_path, False, stamp)
        else:
            continue
        entry = _cached_entry({}, state.current, real_root, scope, found)
        if path in state.current:
            state.volatile.pop(path, None)
        else:
            state.volatile[path] = _Found(path, found.rel_path, found.is_symlink)
        replaced[id(old)] = entry
        at = _position(state.entries, old.rel_path)
        if at is None or state.entries[at] is not old:
            return None
        positions[at] = id(old)
    if replaced:
        # A few entries replaced in place (found by bisection, the entries are sorted): no pass
        # over 50,000 entries, and recall is handed the change (see ListingDelta).
        entries = list(state.entries)
        for at, old_id in positions.items():
            entries[at] = replaced[old_id]
        removed = tuple(state.entries[at] for at in positions)
        state.entries = tuple(entries)
        _advance(state, tuple(replaced.values()), removed, since)
        key = next(k for k, v in _states.items() if v is state)
        _note_dirty(key, real_root, scope, state.current, len(replaced))
    return _listing(state)


def _relist_by_inode(state: _ScopeState, real_root: str, scope: MemoryScope, moved: list[tuple[str, str, int]]) -> bool:
    """List the moved directories again without an ``lstat`` per file: a directory's mtime moves on
    a create, a delete or a rename in it, and each of those changes a name or the inode a name
    points to (an atomic write renames a new file, with a new inode, over the old), which
    ``scandir`` reports for free. An edit in place keeps the inode and does not move the directory:
    the watcher reports it, as it does in every other directory. The entries are changed in place
    (bisection into the sorted tuple), so a write in a directory of 12,500 memories costs its
    ``scandir``, not a pass over 50,000 entries. False, with nothing changed, when only the
    full walk can tell (a symlink, a directory not walked before, an unreadable one): those are rare."""
    from app.context.memory.walk import is_dir as _is_dir

    reread: list[tuple[str, str]] = []  # path, rel_path: new, or a new inode at a known name
    present: dict[str, set[str]] = {}  # prefix -> the names listed now
    stamps: dict[str, int] = {}
    current = state.current
    for directory, prefix, depth in moved:
        try:
            stamps[directory] = os.stat(directory).st_mtime_ns  # before listing, as in _walk
            with os.scandir(directory) as listing:
                items = list(listing)
        except OSError:
            return False
        names = present.setdefault(prefix, set())
        for item in items:
            name = item.name
            if name[0] == ".":
                continue
            if name.endswith(".md"):
                hit = current.get(item.path)
                try:
                    # The same inode at the same name, a regular file: the entry stands (d_ino and
                    # d_type come with the listing, so the common case costs no system call).
                    if hit is not None and item.inode() == hit[0][0] and item.is_file(follow_symlinks=False):
                        names.add(name)
                        continue
                except OSError:
                    return False
                if depth == 0 and name == INDEX_FILENAME:
                    continue
                if _is_symlink(item):
                    return False
                if not _is_dir(item):
                    names.add(name)
                    reread.append((item.path, prefix + name))
                    continue
            if _is_dir(item) and item.path not in state.dirs:
                return False
    # What was listed in the moved directories (a contiguous run of the sorted entries per prefix).
    removed_at: list[int] = []
    entries = state.entries
    for directory, prefix, _ in moved:
        names = present[prefix]
        at = bisect.bisect_left(entries, utf16_sort_key(prefix), key=lambda e: utf16_sort_key(e.rel_path)) if prefix else 0
        while at < len(entries) and entries[at].rel_path.startswith(prefix):
            name = entries[at].rel_path[len(prefix):]
            if "/" not in name and name not in names:
                removed_at.append(at)
            at += 1
    gone = {entries[at].rel_path for at in removed_at}
    fresh: list[tuple[str, MemoryEntry, tuple[_Stamp, MemoryEntry] | None]] = []
    for path, rel in reread:
        stamp = _plain_file_stamp(path)
        if stamp is None:
            return False
        cacheable: dict[str, tuple[_Stamp, MemoryEntry]] = {}  # left empty when the file was read while racy
        entry = _cached_entry({}, cacheable, real_root, scope, _Found(path, rel, False, stamp))
        fresh.append((rel, entry, cacheable.get(path)))
    # Nothing above changed the state: from here on it is updated, and cannot fail.
    walked_at = time.time_ns()
    for directory, prefix, depth in moved:
        state.dirs[directory] = (stamps[directory], prefix, depth)
    state.walked_at = walked_at
    if not removed_at and not fresh:
        return True
    updated = list(entries)
    removed = [entries[at] for at in removed_at]
    for at in sorted(removed_at, reverse=True):
        del updated[at]
    added: list[MemoryEntry] = []
    for rel, entry, cached in fresh:
        path = str(entry.path)
        state.current.pop(path, None)
        state.volatile.pop(path, None)
        if cached is not None:
            state.current[path] = cached
        else:
            state.volatile[path] = _Found(path, rel, False)
        at = bisect.bisect_left(updated, utf16_sort_key(rel), key=lambda e: utf16_sort_key(e.rel_path))
        if at < len(updated) and updated[at].rel_path == rel:
            removed.append(updated[at])
            updated[at] = entry
        else:
            updated.insert(at, entry)
        added.append(entry)
    for entry in removed:
        if entry.rel_path in gone:  # the file is gone (a replaced one's path holds its new entry)
            state.current.pop(str(entry.path), None)
            state.volatile.pop(str(entry.path), None)
    state.entries = tuple(updated)
    _advance(state, tuple(added), tuple(removed))
    key = next(k for k, v in _states.items() if v is state)
    _note_dirty(key, real_root, scope, state.current, len(added) + len(removed))
    return True


def _advance(state: _ScopeState, added: tuple[MemoryEntry, ...], removed: tuple[MemoryEntry, ...], since: int | None = None) -> None:
    """A new generation of the listing, with the change from the previous one for recall. With
    ``since``, a generation made earlier in the same listing call (a relisting, then re-read files)
    is folded in, so the delta reaches back to the generation recall last saw."""
    before = state.generation
    state.generation = next(_generations)
    earlier = state.delta
    if since is not None and before != since and earlier is not None and earlier.before == (since,):
        gone = {id(e) for e in removed}
        joined = {id(e) for e in earlier.added}
        added = tuple(e for e in earlier.added if id(e) not in gone) + added
        removed = earlier.removed + tuple(e for e in removed if id(e) not in joined)
        before = since
    state.delta = ListingDelta((before,), added, removed)


def _plain_file_stamp(path: str) -> _Stamp | None:
    """The file's stamp, or None when it is gone, a symlink or a directory (the caller then walks the scope)."""
    try:
        stat = os.lstat(path)
    except OSError:
        return None
    if S_ISLNK(stat.st_mode) or S_ISDIR(stat.st_mode):
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _position(entries: tuple[MemoryEntry, ...], rel_path: str) -> int | None:
    """Where the entry for ``rel_path`` is in the sorted entries (None: not listed)."""
    wanted = utf16_sort_key(rel_path)
    at = bisect.bisect_left(entries, wanted, key=lambda e: utf16_sort_key(e.rel_path))
    return at if at < len(entries) and entries[at].rel_path == rel_path else None


def _empty_listing() -> MemoryListing:
    """A scope without a directory: no entries, with a version (so the other scope's delta still
    reaches recall when the person has no user memories)."""
    listing = MemoryListing()
    listing.version = ("none",)
    return listing


def _listing(state: _ScopeState) -> MemoryListing:
    listing = MemoryListing(state.entries)
    listing.version = (state.generation,)
    listing.delta = state.delta
    return listing


def _drop(key: tuple[str, str, str]) -> None:
    state = _states.pop(key)
    if state.watcher is not None:
        state.watcher.stop()


def _note_dirty(key: tuple[str, str, str], real_root: str, scope: MemoryScope, current: dict[str, tuple[_Stamp, MemoryEntry]], count: int) -> None:
    _dirty[key] = _dirty.get(key, 0) + count
    # Writing tens of megabytes holds the interpreter for a while: a few edits wait for the next
    # save (a new process re-reads just those files), many changes or a first listing go now. A
    # watched (interactive) session saves the few edits when it exits instead of every minute.
    interval_due = not _watching and time.monotonic() - _last_save.get(key, -1e9) >= SAVE_INTERVAL_SECONDS
    if _dirty[key] >= SAVE_AFTER_CHANGES or key not in _last_save or interval_due:
        _dirty[key] = 0
        _last_save[key] = time.monotonic()
        save_cache_file(real_root, scope, current)


def save_term_statistics() -> None:
    """Save every listed scope's cache file again: recall has tokenised its memories, and a new
    process should find the terms there instead of tokenising thousands of files."""
    for (_, real_root, scope_value), state in list(_states.items()):
        save_cache_file(real_root, MemoryScope(scope_value), state.current)


def listing_fingerprint_for(root: Path, scope: MemoryScope, listing: MemoryListing) -> str | None:
    """The fingerprint (scan_cache.listing_fingerprint) of ``listing``, the latest listing of the
    scope at ``root``; None when that is not the latest or holds an entry read every time (a
    symlink, a file changed within the racy second), whose content no stamp vouches for. Free
    when the listing is the cache file's as it was written; ~50 ms at 50,000 memories otherwise."""
    state = _states.get((str(root), os.path.realpath(root), scope.value))
    if state is None or listing.version != (state.generation,) or state.volatile:
        return None
    if state.fingerprint is None or state.fingerprint[0] != state.generation:
        state.fingerprint = (state.generation, listing_fingerprint(state.current.values()))
    return state.fingerprint[1]


def scan_notes(root: Path) -> list[str]:
    """What the last listing of ``root`` left out and why ([]: nothing)."""
    return list(_notes.get(os.path.realpath(root), []))


def clear_scan_cache() -> None:
    """Forget every parsed entry (the next listing reads every file; cache files are left alone)."""
    for key in list(_states):
        _drop(key)
    _last_save.clear()
    _dirty.clear()


_notes: dict[str, list[str]] = {}
_dirty: dict[tuple[str, str, str], int] = {}
_last_save: dict[tuple[str, str, str], float] = {}
SAVE_AFTER_CHANGES = 100
SAVE_INTERVAL_SECONDS = 60.0


def _changed_count(previous: dict[str, tuple[_Stamp, MemoryEntry]], current: dict[str, tuple[_Stamp, MemoryEntry]]) -> int:
    return sum(1 for k, v in current.items() if previous.get(k) is not v) + sum(1 for k in previous if k not in current)


@atexit.register
def save_unsaved_edits() -> None:
    """At exit, save the scopes whose few edits were left for later (see _note_dirty)."""
    if not _watching:
        return  # only a watched session leaves edits for later
    for key, count in list(_dirty.items()):
        state = _states.get(key)
        if count and state is not None:
            _dirty[key] = 0
            write_cache(cache_file(key[1], MemoryScope(key[2])), key[1], dict(state.current))


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
