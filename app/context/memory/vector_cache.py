"""Memory vectors for semantic recall, kept per scope beside the parsed-memory cache.

In a process a vector belongs to the entry object it was computed for: the
listing (app/context/memory/scan.py) hands back the same object only while the
file's ``lstat`` (inode, size, mtime, ctime) is unchanged, so an edited memory
is a new entry and gets a new vector (a file read again only because its
``lstat`` was too fresh to trust keeps its vector when its text's digest is the
same). On disk, one JSON file per scope root sits
next to that scope's parsed-memory cache (``<scope>-<digest>.vectors.json``, in
the user's data directory, never in the repository); a row from it is used only
when the file's ``lstat`` still matches the stamp saved with it and the text's
digest matches too (the digest closes the gap between reading a file and taking
its stamp). The model's name is saved with the vectors: another model's are
never reused. Writes are atomic and happen in a daemon thread.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.context.memory.embedder import MAX_EMBEDDED_CHARS, Embedder
from app.context.memory.entry import MemoryEntry

CACHE_VERSION = 1
# Up to this many new or edited memories are embedded inside a turn's recall (about 10 ms);
# more (a first run over thousands) are embedded in the background while BM25F answers alone.
INLINE_LIMIT = 256
# A turn waits this long at most for a fill in progress (one of up to INLINE_LIMIT takes ~15 ms).
TURN_LOCK_WAIT_SECONDS = 0.05

_Stamp = tuple[int, int, int, int]


def embedded_text(entry: MemoryEntry) -> str:
    return f"{entry.title}\n{entry.description}\n{entry.body}"[:MAX_EMBEDDED_CHARS]


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def scope_root(entry: MemoryEntry) -> str:
    path = str(entry.path)
    return path[: len(path) - len(entry.rel_path)].rstrip("/\\") or path


def lstat_stamp(path: str) -> _Stamp | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def vectors_file(root: str, scope: str) -> Path:
    """Beside the scope's parsed-memory cache file."""
    from app.context.memory.paths import MemoryScope
    from app.context.memory.scan import cache_file

    parsed = cache_file(os.path.realpath(root), MemoryScope(scope))
    return parsed.with_name(parsed.stem + ".vectors.json")


class ScopeVectors:
    """The vectors of one scope root: in memory by entry, on disk by path + stamp + digest."""

    def __init__(self, root: str, scope: str, model: str) -> None:
        self.root, self.scope, self.model = root, scope, model
        self._by_entry: dict[int, tuple[MemoryEntry, Any]] = {}
        self._by_path: dict[str, tuple[str, Any]] = {}  # path -> (digest of the embedded text, vector)
        self._disk: dict[str, tuple[_Stamp, str, Any]] | None = None  # loaded on first need
        self._dirty = False

    def lookup(self, entry: MemoryEntry) -> Any | None:
        hit = self._by_entry.get(id(entry))
        if hit is not None and hit[0] is entry:
            return hit[1]
        # A file the listing read again (just written, so its lstat was too fresh to trust) whose
        # text is what was embedded before keeps its vector.
        previous = self._by_path.get(str(entry.path))
        if previous is not None and previous[0] == text_digest(embedded_text(entry)):
            self.store(entry, previous[1])
            return previous[1]
        row = self._disk_rows().get(str(entry.path))
        if row is not None:
            stamp, digest, vector = row
            if lstat_stamp(str(entry.path)) == stamp and text_digest(embedded_text(entry)) == digest:
                self._by_entry[id(entry)] = (entry, vector)
                return vector
        return None

    def store(self, entry: MemoryEntry, vector: Any) -> None:
        self._by_entry[id(entry)] = (entry, vector)
        self._by_path[str(entry.path)] = (text_digest(embedded_text(entry)), vector)
        self._dirty = True

    def keep_only(self, entries: Sequence[MemoryEntry]) -> None:
        """Drop vectors of entries no longer listed (edited or deleted files)."""
        wanted = {id(e) for e in entries}
        stale = [key for key in self._by_entry if key not in wanted]
        for key in stale:
            del self._by_entry[key]
        if stale:
            paths = {str(e.path) for e in entries}
            for path in [p for p in self._by_path if p not in paths]:
                del self._by_path[path]
        self._dirty = self._dirty or bool(stale)

    @property
    def disk_loaded(self) -> bool:
        return self._disk is not None

    def _disk_rows(self) -> dict[str, tuple[_Stamp, str, Any]]:
        if self._disk is None:
            self._disk = _load(vectors_file(self.root, self.scope), self.root, self.model)
        return self._disk

    def snapshot(self) -> list[tuple[MemoryEntry, Any]] | None:
        """The (entry, vector) pairs to save, or None when nothing changed; the save thread takes
        their stamps and digests (at 5,000 memories that is most of a save's cost)."""
        if not self._dirty:
            return None
        self._dirty = False
        return list(self._by_entry.values())


class VectorCache:
    """Every scope's vectors for one model; ``vectors`` returns a matrix aligned with the entries."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._scopes: dict[tuple[str, str], ScopeVectors] = {}
        self._lock = threading.Lock()
        self._filling = False
        self._last: tuple[tuple[int, ...], Any, list[MemoryEntry]] | None = None
        self._scope_of: dict[int, tuple[MemoryEntry, ScopeVectors]] = {}

    def _scope(self, entry: MemoryEntry) -> ScopeVectors:
        key = (scope_root(entry), entry.scope.value)
        scope = self._scopes.get(key)
        if scope is None:
            scope = self._scopes[key] = ScopeVectors(key[0], key[1], self.embedder.name)
        return scope

    def vectors(self, entries: Sequence[MemoryEntry], *, block: bool = False) -> Any | None:
        """One unit vector per entry (a numpy matrix), or None when too many are missing to embed
        now: then they are embedded in a background thread and the caller goes without this time."""
        import numpy as np

        # A turn does not wait out a long fill in the background: it goes without vectors instead.
        if not self._lock.acquire(timeout=-1 if block else TURN_LOCK_WAIT_SECONDS):
            return None
        try:
            # Most turns list exactly the entries of the turn before (the same objects: no file
            # changed), so the matrix is reused: 5,000 lookups and a stack cost ~100 ms otherwise.
            signature = tuple(map(id, entries))
            if self._last is not None and self._last[0] == signature:
                return self._last[1]
            # Each entry's scope, remembered by entry between calls (deriving the root from the path
            # for 5,000 entries three times was most of a changed listing's cost).
            known = self._scope_of
            scopes = [hit[1] if (hit := known.get(id(e))) is not None and hit[0] is e else self._scope(e) for e in entries]
            self._scope_of = {id(e): (e, s) for e, s in zip(entries, scopes)}
            if not block and sum(1 for s in scopes if not s.disk_loaded) > INLINE_LIMIT:
                # Reading thousands of saved vectors and lstat-ing their files is work for the background.
                self._fill_in_background(list(entries))
                return None
            found: list[Any] = []
            missing: list[int] = []
            for position, entry in enumerate(entries):
                vector = scopes[position].lookup(entry)
                found.append(vector)
                if vector is None:
                    missing.append(position)
            if len(missing) > INLINE_LIMIT and not block:
                self._fill_in_background(list(entries))
                return None
            if missing:
                fresh = self.embedder.embed([embedded_text(entries[p]) for p in missing])
                for p, vector in zip(missing, fresh):
                    found[p] = vector
                    scopes[p].store(entries[p], vector)
            by_scope: dict[int, tuple[ScopeVectors, list[MemoryEntry]]] = {}
            for entry, scope in zip(entries, scopes):
                by_scope.setdefault(id(scope), (scope, []))[1].append(entry)
            for scope, kept in by_scope.values():
                scope.keep_only(kept)
            if missing:
                self._save_in_background()
            matrix = np.vstack(found).astype(np.float32, copy=False) if found else np.zeros((0, 1), dtype=np.float32)
            # The entries are held with the matrix, so their ids cannot be reused while it is kept.
            self._last = (signature, matrix, list(entries))
            return matrix
        finally:
            self._lock.release()

    def _fill_in_background(self, entries: list[MemoryEntry]) -> None:
        if self._filling:
            return
        self._filling = True

        def fill() -> None:
            try:
                self.vectors(entries, block=True)
            except Exception:  # semantic recall is optional; BM25F goes on alone
                pass
            finally:
                self._filling = False

        threading.Thread(target=fill, name="memory-vectors-fill", daemon=True).start()

    def _save_in_background(self) -> None:
        jobs = []
        for scope in self._scopes.values():
            rows = scope.snapshot()
            if rows is not None:
                jobs.append((vectors_file(scope.root, scope.scope), scope.root, scope.model, rows))
        if jobs:
            thread = threading.Thread(target=_save_all, args=(jobs,), name="memory-vectors-save", daemon=True)
            thread.start()
            self.last_save = thread

    last_save: threading.Thread | None = None


def _save_all(jobs: list[tuple[Path, str, str, list[tuple[MemoryEntry, Any]]]]) -> None:
    import numpy as np

    from app.fsutil import atomic_write_text

    for target, root, model, pairs in jobs:
        rows = []
        for entry, vector in pairs:
            stamp = lstat_stamp(str(entry.path))
            # A file changed since it was listed gets the new stamp but the old digest: never reused.
            if stamp is not None:
                rows.append((str(entry.path), stamp, text_digest(embedded_text(entry)), vector))
        try:
            matrix = np.vstack([r[3] for r in rows]).astype(np.float16) if rows else np.zeros((0, 0), dtype=np.float16)
            payload = {
                "version": CACHE_VERSION,
                "root": os.path.realpath(root),
                "model": model,
                "dim": int(matrix.shape[1]) if rows else 0,
                "rows": [[path, list(stamp), digest] for path, stamp, digest, _ in rows],
                "vectors": base64.b64encode(matrix.tobytes()).decode("ascii"),
            }
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write_text(target, json.dumps(payload, separators=(",", ":")), mode=0o600)
        except (OSError, ValueError, TypeError):
            pass  # the cache is an optimisation; recall never fails for it


def _load(target: Path, root: str, model: str) -> dict[str, tuple[_Stamp, str, Any]]:
    import numpy as np

    try:
        data = json.loads(target.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION or data.get("model") != model or data.get("root") != os.path.realpath(root):
            return {}
        rows = data["rows"]
        if not rows:
            return {}
        matrix = np.frombuffer(base64.b64decode(data["vectors"]), dtype=np.float16).reshape(len(rows), int(data["dim"]))
        vectors = matrix.astype(np.float32)
        return {path: (tuple(stamp), digest, vectors[i]) for i, (path, stamp, digest) in enumerate(rows)}  # type: ignore[misc]
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # a missing or damaged cache only costs embedding again
