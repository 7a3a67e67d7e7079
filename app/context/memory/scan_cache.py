"""The per-scope cache file of parsed memories: written in a daemon thread, atomically, read once
by a new process (see app/context/memory/scan.py, which decides when an entry from it is used).

The file is a magic line, the length of a JSON part (orjson), the JSON part, then raw arrays. The
JSON holds columns, one list per field with one item per memory, not one object per memory: decoding 50,000 rows of nine values each, with three term dicts per memory,
was most of a new process's 17 s first listing and recall at 50,000 memories (bench/memory_scale.py;
the rest was building objects and the garbage collector walking them). The memories' search
terms are a term segment (app/context/memory/term_segment.py) the BM25F index uses as it is.
Columns that nearly always repeat another (a title that is the name, fields that are just
name, description and type, a frontmatter block that is just those three lines) are stored as
null and rebuilt.

A file of another version, or for another root, is ignored (the memories are read from their
files and the file written again); a damaged one too, with a warning naming it. Nothing here
ever writes a memory file: the cache only holds copies of what was read.
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import logging
import sys
import threading
import time
from array import array
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.context.memory.document import ParsedMemory
from app.context.memory.entry import DocTerms, MemoryEntry
from app.context.memory.paths import MemoryScope, MemoryType
from app.context.memory.textunits import utf16_sort_key

if TYPE_CHECKING:
    from app.context.memory.term_segment import CachedTerms

# (bulk.py and term_segment.py are imported where a cache file is read or written: a turn in a
# project without memories never loads them.)
# 2: rows carry the memory's search terms; 3: parsed by app/context/frontmatter.py; 4: columns and a term segment
CACHE_VERSION = 5
Stamp = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns
_save_lock = threading.Lock()
log = logging.getLogger(__name__)
_TYPES: dict[str | None, MemoryType | None] = {None: None, **{kind.value: kind for kind in MemoryType}}
MAGIC = b"agentctx memory cache\n"
FREEZE_AFTER_ENTRIES = 5_000  # see load_cache_file
_LENGTH_BYTES = 8
_COLUMNS = ("rel", "ino", "fsize", "mtime_ns", "ctime_ns", "mtime", "size", "type", "name", "title", "description", "body", "fields", "frontmatter")


def cache_file(real_root: str, scope: MemoryScope) -> Path:
    """One file per scope root, in the user's data directory (a team root is in the repository)."""
    from app.paths import user_data_dir

    digest = hashlib.sha256(real_root.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return user_data_dir() / "cache" / "memory" / f"{scope.value}-{digest}.cache"


def _legacy_cache_file(target: Path) -> Path:
    """Where versions before 4 kept the scope's cache (JSON rows): removed when the new one is written."""
    return target.with_suffix(".json")


class CachedListing(dict[str, tuple[Stamp, MemoryEntry]]):
    """A cache file's entries by path. ``in_order``: they come in the listing's order (by relative
    path in UTF-16 code units), so a listing that finds every file unchanged need not sort 50,000
    paths again; ``fingerprint``: listing_fingerprint of the rows, computed when the file was written."""

    in_order = False
    fingerprint: str | None = None


def listing_fingerprint(items: Iterable[tuple[Stamp, MemoryEntry]], *, in_order: bool = False) -> str:
    """A digest of which files a listing holds and their stamps: two listings with the same one
    hold the same memories as read (the cache's own rule: an unchanged stamp is unchanged content).
    ``in_order``: ``items`` are already sorted by relative path (UTF-16 code units)."""
    rows = list(items) if in_order else sorted(items, key=lambda item: utf16_sort_key(item[1].rel_path))
    text = "\n".join([f"{e.rel_path}\0{s[0]}\0{s[1]}\0{s[2]}\0{s[3]}" for s, e in rows])
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


class CacheFileError(ValueError):
    """The cache file is not what this version writes (damaged, cut short, edited by hand)."""


def load_cache_file(real_root: str, scope: MemoryScope, listed_root: str | None = None) -> CachedListing:
    """The cached entries by path (as listed under ``listed_root``, default ``real_root``); {}
    when there is no usable file. Never raises: the cache only saves reading the files."""
    target = cache_file(real_root, scope)
    try:
        raw = target.read_bytes()
    except OSError:
        return CachedListing()
    from app.context.memory.bulk import paused_gc

    try:
        with paused_gc():  # the decode creates ~100,000 containers, none of them garbage (bulk.py)
            loaded = decode_cache(raw, real_root, scope, listed_root or real_root)
            if len(loaded) >= FREEZE_AFTER_ENTRIES:
                # The entries live as long as the process lists them, and hold no reference cycles
                # (refcounting frees a replaced one): moved out of the collector's generations, they
                # are not walked by every full collection after this (~0.1-0.3 s each at 50,000
                # memories, measured as imports and the index build slowing down after the load).
                # What else is alive now is frozen too: mostly modules, classes and functions.
                gc.freeze()
        return loaded
    except (CacheFileError, ValueError, KeyError, TypeError, IndexError, OverflowError, AttributeError) as error:
        log.warning("the memory cache file %s is damaged (%s): the memories are read from their files and it is written again", target, error)
        return CachedListing()


def decode_cache(raw: bytes, real_root: str, scope: MemoryScope, listed_root: str) -> CachedListing:
    """The entries of a cache file's bytes ({} for another version or root). Raises CacheFileError
    (or the ValueError of a JSON that does not parse) when the file is damaged."""
    import orjson

    from app.context.memory.term_segment import CachedTerms, decode_segment

    if not raw.startswith(MAGIC):
        raise CacheFileError("it does not start with the cache file's magic line")
    start = len(MAGIC) + _LENGTH_BYTES
    size = int.from_bytes(raw[len(MAGIC) : start], "little")
    if start + size > len(raw):
        raise CacheFileError("it is cut short")
    view = memoryview(raw)
    data = orjson.loads(view[start : start + size])
    if not isinstance(data, dict):
        raise CacheFileError("its JSON part is not an object")
    if data.get("version") != CACHE_VERSION or data.get("root") != real_root:
        return CachedListing()
    if data.get("byteorder") != sys.byteorder:
        return CachedListing()  # arrays written on another machine: read the files instead
    arrays: dict[str, array] = {}
    offset = start + size
    for name, code, length in data["arrays"]:
        if not isinstance(length, int) or length < 0 or offset + length > len(raw) or code not in ("B", "I", "L", "d"):
            raise CacheFileError(f"its array {name!r} does not fit the file")
        values = array(code)
        values.frombytes(view[offset : offset + length])
        arrays[name] = values
        offset += length
    if offset != len(raw):
        raise CacheFileError("it has bytes after its last array")
    columns = [data[name] for name in _COLUMNS]
    count = len(columns[0])
    if not all(isinstance(column, list) and len(column) == count for column in columns):
        raise CacheFileError("its columns have different lengths")
    rel, ino, fsize, mtime_ns, ctime_ns, mtime, size, kinds, name, title, description, body, fields, frontmatter = columns
    if not all(isinstance(value, str) for value in rel):
        raise CacheFileError("a relative path is not text")
    problems: dict[int, tuple[str, ...]] = {int(row): tuple(found) for row, found in data["problems"].items()}
    doc_problems: dict[int, tuple[str, ...]] = {int(row): tuple(found) for row, found in data["doc_problems"].items()}
    pinned = set(data["pinned"])
    types = list(map(_TYPES.__getitem__, kinds))  # KeyError for a type this version does not know
    segment = decode_segment(data["terms"], arrays, count) if data.get("terms") is not None else None
    # A row without terms has none in the segment's flags either; without a segment, none has.
    terms: list[CachedTerms | None] = CachedTerms.for_rows(segment, count) if segment is not None else [None] * count
    if segment is not None and segment.has.count(0):
        terms = [known if flag else None for known, flag in zip(terms, segment.has)]
    prefix = listed_root.rstrip("/") + "/"
    paths = [prefix + path for path in rel]
    entries: list[MemoryEntry] = []
    append = entries.append
    new = object.__new__
    rows = zip(range(count), types, kinds, name, title, description, body, fields, frontmatter, rel, paths, mtime, size, terms)
    for row, kind, raw_kind, row_name, row_title, row_description, row_body, row_fields, block, row_rel, row_path, row_mtime, row_size, row_terms in rows:
        if row_fields is None:
            row_fields = {"name": row_name, "description": row_description, "type": raw_kind}
        if block is None and kind is not None:
            block = f"name: {row_name}\ndescription: {row_description}\ntype: {raw_kind}"  # _plain_block
        # The frozen dataclasses' __init__ sets each field through object.__setattr__: ~2.3 us a
        # memory for the two, against ~1.2 us filling their __dict__ here (the same attributes:
        # tests/unit/context/memory/test_cache_format.py compares them with entries built normally).
        document = new(ParsedMemory)
        document.__dict__.update(
            type=kind, name=row_name, title=row_name if row_title is None else row_title, description=row_description,
            body=row_body, fields=row_fields, frontmatter_text=block, problems=doc_problems.get(row, ()),
        )
        entry = new(MemoryEntry)
        entry.__dict__.update(
            scope=scope, _path=row_path, rel_path=row_rel, document=document, mtime=row_mtime, size=row_size,
            problems=problems.get(row, ()), pinned=row in pinned, terms=row_terms,
        )
        append(entry)
    if segment is not None:
        segment.entries = entries
        segment.keys = list(map(id, entries))
    stamps = zip(ino, fsize, mtime_ns, ctime_ns)
    loaded = CachedListing(zip(paths, zip(stamps, entries)))  # type: ignore[arg-type]
    fingerprint = data.get("fingerprint")
    loaded.fingerprint = fingerprint if isinstance(fingerprint, str) else None
    # Written in order (encode_cache); trusted only when plain string order agrees with UTF-16 order
    # (no character from U+E000 up, where the two differ) and the rows really are ascending: ~5 ms.
    try:
        loaded.in_order = max(map(max, rel), default="") < "\ue000" and all(a < b for a, b in zip(rel, rel[1:]))
    except ValueError:  # an empty relative path
        loaded.in_order = False
    return loaded


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


def encode_cache(real_root: str, current: dict[str, tuple[Stamp, MemoryEntry]]) -> bytes:
    """The cache file's bytes for the listed entries (the inverse of decode_cache)."""
    import orjson

    # In the listing's order: a new process that finds nothing changed takes the rows as they are.
    items = sorted(current.values(), key=lambda item: utf16_sort_key(item[1].rel_path))
    entries = [entry for _, entry in items]
    documents = [entry.document for entry in entries]
    kinds = [d.type.value if d.type is not None else None for d in documents]
    scalar = (str, int, float, bool, type(None))
    fields: list[dict[str, Any] | None] = []
    for d, kind in zip(documents, kinds):
        kept = {k: v for k, v in d.fields.items() if isinstance(v, scalar)}
        fields.append(None if kept == {"name": d.name, "description": d.description, "type": kind} else kept)
    payload: dict[str, Any] = {
        "version": CACHE_VERSION,
        "root": real_root,
        "rel": [e.rel_path for e in entries],
        "ino": [stamp[0] for stamp, _ in items],
        "fsize": [stamp[1] for stamp, _ in items],
        "mtime_ns": [stamp[2] for stamp, _ in items],
        "ctime_ns": [stamp[3] for stamp, _ in items],
        "mtime": [e.mtime for e in entries],
        "size": [e.size for e in entries],
        "type": kinds,
        "name": [d.name for d in documents],
        "title": [None if d.title == d.name else d.title for d in documents],
        "description": [d.description for d in documents],
        "body": [d.body for d in documents],
        "fields": fields,
        # null: the block is exactly its name, description and type lines (what render_memory writes);
        # a file without frontmatter has no type, so its null is never rebuilt into one.
        "frontmatter": [None if kind is not None and d.frontmatter_text == _plain_block(d.name, d.description, kind) else d.frontmatter_text
                        for d, kind in zip(documents, kinds)],
        "problems": {str(row): list(e.problems) for row, e in enumerate(entries) if e.problems},
        "doc_problems": {str(row): list(d.problems) for row, d in enumerate(documents) if d.problems},
        "pinned": [row for row, e in enumerate(entries) if e.pinned],
        "byteorder": sys.byteorder,
        "fingerprint": listing_fingerprint(items, in_order=True),
        "terms": None,
        "arrays": [],
    }
    blobs: list[bytes] = []
    segment = _terms_segment(entries)
    if segment is not None:
        payload["terms"], arrays = segment
        for name, values in arrays.items():
            blobs.append(values.tobytes())
            payload["arrays"].append([name, values.typecode, len(blobs[-1])])
    head = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
    return b"".join([MAGIC, len(head).to_bytes(_LENGTH_BYTES, "little"), head, *blobs])


def _plain_block(name: str, description: str, kind: str) -> str:
    return f"name: {name}\ndescription: {description}\ntype: {kind}"


def _terms_segment(entries: list[MemoryEntry]) -> tuple[dict[str, Any], dict[str, array]] | None:
    """The entries' term segment, with the average field lengths the scope's index would use
    (term_segment.py): its JSON part and its arrays; None when no entry has terms yet (recall has not run)."""
    from app.context.memory.term_segment import CachedTerms
    rows: list[DocTerms | CachedTerms | None] = []
    totals = [0, 0, 0]
    count = 0
    for entry in entries:
        terms = entry.terms
        if isinstance(terms, DocTerms):
            lengths = terms.lengths
        elif isinstance(terms, CachedTerms):
            lengths = terms.segment.row_lengths(terms.row)
        else:
            rows.append(None)
            continue
        rows.append(terms)
        count += 1
        for field in range(3):
            totals[field] += lengths[field]
    if not count:
        return None
    from app.context.memory.bm25f import MAX_DRIFT, saturated
    from app.context.memory.term_segment import encode_segment

    # Bm25fIndex._averages over the scope's indexed memories: what a new process's index starts from.
    basis = tuple(max(total / count, 1.0) for total in totals)
    # One changed memory moves the averages a little: postings saved with averages within MAX_DRIFT
    # of these are what the index itself keeps using (ranking._rebase_if_drifted), so the older
    # segment's basis is kept and its rows are copied, not recomputed (~1.5 s at 50,000 memories).
    older = Counter(terms.segment for terms in rows if isinstance(terms, CachedTerms))
    if older:
        kept = older.most_common(1)[0][0].basis
        if all(abs(a - b) <= MAX_DRIFT * b for a, b in zip(basis, kept)):
            basis = kept
    return encode_segment(rows, basis, saturated)  # type: ignore[arg-type]


def write_cache(target: Path, real_root: str, current: dict[str, tuple[Stamp, MemoryEntry]]) -> None:
    from app.fsutil import atomic_write_bytes

    try:
        data = encode_cache(real_root, current)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_bytes(target, data, mode=0o600)
        _legacy_cache_file(target).unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        pass  # the cache is an optimisation; listing never fails for it


def wait_for_cache_saves(timeout: float = 10.0) -> None:
    """Block until pending cache-file saves are written (benchmarks, tests, and the exit)."""
    end = time.monotonic() + timeout
    while _pending_saves and time.monotonic() < end:
        time.sleep(0.01)


# A save still running when the interpreter exits would die with its daemon thread: a headless
# run that read 50,000 memories cold, or tokenised them, then left before its cache file was
# written, and the next run paid the same 10+ s again (every `-p` run did, before this). The exit
# waits for it, bounded; only a process that had that much to save has anything pending.
SAVE_AT_EXIT_SECONDS = 30.0


@atexit.register
def _finish_saves_at_exit() -> None:
    wait_for_cache_saves(SAVE_AT_EXIT_SECONDS)
