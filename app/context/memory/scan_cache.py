"""The per-scope cache file of parsed memories: written in a daemon thread, atomically, read once
by a new process (see app/context/memory/scan.py, which decides when an entry from it is used)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

from app.context.memory.document import ParsedMemory
from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import MemoryScope, memory_type

CACHE_VERSION = 3  # 2: rows carry the memory's search terms; 3: parsed by app/context/frontmatter.py
Stamp = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns
_save_lock = threading.Lock()


def cache_file(real_root: str, scope: MemoryScope) -> Path:
    """One file per scope root, in the user's data directory (a team root is in the repository)."""
    from app.paths import user_data_dir

    digest = hashlib.sha256(real_root.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return user_data_dir() / "cache" / "memory" / f"{scope.value}-{digest}.json"


def load_cache_file(real_root: str, scope: MemoryScope) -> dict[str, tuple[Stamp, MemoryEntry]]:
    try:
        data = json.loads(cache_file(real_root, scope).read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION or data.get("root") != real_root:
            return {}
        from app.context.memory.entry import DocTerms

        loaded: dict[str, tuple[Stamp, MemoryEntry]] = {}
        for path, rel, stamp, mtime, size, pinned, problems, doc, terms in data["entries"]:
            document = ParsedMemory(
                type=memory_type(doc[0]), name=doc[1], title=doc[2], description=doc[3], body=doc[4],
                fields=doc[5], frontmatter_text=doc[6], problems=tuple(doc[7]),
            )
            known = DocTerms((terms[0], terms[1], terms[2]), (terms[3], terms[4], terms[5])) if terms else None
            entry = MemoryEntry(scope, Path(path), rel, document, mtime, size, tuple(problems), pinned, known)
            loaded[path] = (tuple(stamp), entry)  # type: ignore[assignment]
        return loaded
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # a missing or damaged cache only costs a full read


def save_cache_file(real_root: str, scope: MemoryScope, current: dict[str, tuple[Stamp, MemoryEntry]]) -> None:
    """Write the scope's cache file beside the turn, in a daemon thread: at 50,000 memories it is
    tens of megabytes, and a turn must not wait for it. Saves of one scope are coalesced (the
    newest listing wins) and each is atomic, so a reader sees the old file or the new one."""
    target = cache_file(real_root, scope)
    with _save_lock:
        start = str(target) not in _pending_saves
        _pending_saves[str(target)] = (real_root, dict(current))
    if start:
        threading.Thread(target=_save_loop, args=(target,), name="memory-cache-save", daemon=True).start()


_pending_saves: dict[str, tuple[str, dict[str, tuple[Stamp, MemoryEntry]]]] = {}


def _save_loop(target: Path) -> None:
    while True:
        with _save_lock:
            job = _pending_saves.get(str(target))
            if job is None:
                return
            _pending_saves[str(target)] = None  # type: ignore[assignment]  # taken; a newer one may arrive
        real_root, current = job
        write_cache(target, real_root, current)
        with _save_lock:
            if _pending_saves.get(str(target)) is None:
                _pending_saves.pop(str(target), None)
                return


def write_cache(target: Path, real_root: str, current: dict[str, tuple[Stamp, MemoryEntry]]) -> None:
    from app.fsutil import atomic_write_text

    rows = []
    for path, (stamp, e) in current.items():
        d = e.document
        fields = {k: v for k, v in d.fields.items() if isinstance(v, (str, int, float, bool, type(None)))}
        t = e.terms
        terms = [*t.fields, *t.lengths] if t is not None else None  # type: ignore[attr-defined]
        rows.append([path, e.rel_path, list(stamp), e.mtime, e.size, e.pinned, list(e.problems),
                     [d.type.value if d.type else None, d.name, d.title, d.description, d.body, fields, d.frontmatter_text, list(d.problems)],
                     terms])
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        payload = {"version": CACHE_VERSION, "root": real_root, "entries": rows}
        # orjson writes 45 MB in 0.18 s where json takes 0.8 s, and a save shares the interpreter
        # with the turn; reading stays with json, which decodes these rows faster (bench/memory_scale.py).
        import orjson

        atomic_write_text(target, orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS).decode("utf-8"), mode=0o600)
    except (OSError, TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        pass  # the cache is an optimisation; listing never fails for it


def wait_for_cache_saves(timeout: float = 10.0) -> None:
    """Block until pending cache-file saves are written (benchmarks and tests)."""
    end = time.monotonic() + timeout
    while _pending_saves and time.monotonic() < end:
        time.sleep(0.01)
