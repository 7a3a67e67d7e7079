"""Whether a scope's MEMORY.md is already in step with its memories, so start-up need not merge it.

Every session starts by bringing each index in step with the files (a crash between a memory's
write and its index's rebuild leaves one stale). With 50,000 memories that rebuild formats
50,000 index lines and merges them into a 50,000-line MEMORY.md, ~4 s, to find nothing to do
(bench/memory_scale.py's corpus in a headless turn). A small marker file per scope remembers the
last time the index was found or made in step: the fingerprint of the listing it was checked
against (which files, with which stamps: scan_cache.listing_fingerprint) and the index file's own
stamp. When both are unchanged, the merge would produce the very text already there, and is
skipped. Anything else (a memory changed, added or removed, the index edited, a file whose
content no stamp vouches for, a file changed within the racy second) runs the full rebuild.

The marker lives beside the scope's cache file in the user's data directory; losing or damaging
it only costs a rebuild. MARKER_VERSION changes whenever index.py changes what it writes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from stat import S_ISREG

from app.context.memory.paths import MemoryPaths, MemoryScope, check_team_root
from app.context.memory.scan import RACY_NS, cache_file, listing_fingerprint_for, scan_scope

MARKER_VERSION = 1


def refresh_index(paths: MemoryPaths, scope: MemoryScope) -> bool:
    """Bring the scope's MEMORY.md in step with its files unless it is known to be; True when it
    was written. Raises what rebuild_index raises."""
    from app.context.memory.index import write_index

    root = paths.root(scope)
    if scope is MemoryScope.TEAM:
        check_team_root(paths.workspace_root, root)
    listing = scan_scope(root, scope)
    fingerprint = listing_fingerprint_for(root, scope, listing)
    target = paths.index_file(scope)
    marker = marker_file(root, scope)
    if fingerprint is not None and _read_marker(marker) == {"version": MARKER_VERSION, "listing": fingerprint, "index": _stamp(target)}:
        return False
    written = write_index(paths, scope, listing).written
    stamp = _stamp(target)
    if fingerprint is not None and stamp is not None and max(stamp[2], stamp[3]) < time.time_ns() - RACY_NS:
        # Recorded only once the index is past the racy second: an edit in the same clock tick as
        # its write could otherwise leave the same stamp on different text.
        _write_marker(marker, {"version": MARKER_VERSION, "listing": fingerprint, "index": list(stamp)})
    return written


def marker_file(root: Path, scope: MemoryScope) -> Path:
    return cache_file(os.path.realpath(root), scope).with_suffix(".index.json")


def _stamp(path: Path) -> list[int] | None:
    try:
        stat = os.lstat(path)
    except OSError:
        return None
    if not S_ISREG(stat.st_mode):
        return None  # a symlink or something else in the index's place: always rebuilt
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def _read_marker(path: Path) -> object:
    import json

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_marker(path: Path, data: dict[str, object]) -> None:
    import json

    from app.fsutil import atomic_write_text

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_text(path, json.dumps(data), mode=0o600)
    except OSError:
        pass  # only a shortcut for the next start-up
