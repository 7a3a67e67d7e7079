"""The scope cache file's format (version 4): what goes in comes back equal, and anything else is refused."""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import fields, replace
from pathlib import Path

import orjson
import pytest

from app.context.memory.paths import MemoryScope
from app.context.memory.ranking import doc_terms
from app.context.memory.store import MemoryStore
from app.context.memory.term_segment import CachedTerms
from tests.unit.memory_support import make_paths, memory_text, put

scan_module = importlib.import_module("app.context.memory.scan")
cache = importlib.import_module("app.context.memory.scan_cache")

ODD_FILES = {
    "feedback/plain.md": memory_text("Plain", "a plain memory", "feedback", "- a body line"),
    "user/quoted.md": '---\nname: "quoted: name"\ndescription: has a # hash\ntype: user\nextra: 3\n---\n\nbody\n',
    "project/titled.md": "---\ntitle: Only a title\ndescription: d\ntype: project\n---\n",
    "reference/wrong-folder.md": memory_text("Wrong", "in the wrong folder", "user"),
    "loose.md": "no frontmatter at all\n",
    "pinned/keep.md": memory_text("Pinned", "kept forever", "project", "x"),
    "feedback/\u00e9t\u00e9 \U0001f600.md": memory_text("Unicode", "caf\u00e9 \U0001f600", "feedback", "\u4ee3\u7801"),
    "feedback/empty.md": "",
}


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))
    scan_module.clear_scan_cache()
    store = MemoryStore(make_paths(tmp_path))
    for rel, text in ODD_FILES.items():
        put(store.paths.project_root, rel, text)
    yield store
    scan_module.clear_scan_cache()


def _saved(store: MemoryStore) -> tuple[list, Path]:
    listed = store.list(MemoryScope.PROJECT)
    for entry in listed:
        if entry.usable:
            doc_terms(entry)  # as recall does: the next save carries the terms
    scan_module.save_term_statistics()
    scan_module.wait_for_cache_saves()
    return list(listed), cache.cache_file(os.path.realpath(store.paths.project_root), MemoryScope.PROJECT)


def _load(store: MemoryStore) -> dict:
    root = store.paths.project_root
    return cache.load_cache_file(os.path.realpath(root), MemoryScope.PROJECT, str(root))


def test_entries_come_back_equal_with_the_same_attributes(store: MemoryStore) -> None:
    listed, _ = _saved(store)
    loaded = {entry.rel_path: entry for _, entry in _load(store).values()}
    assert sorted(loaded) == sorted(e.rel_path for e in listed)
    for entry in listed:
        back = loaded[entry.rel_path]
        assert back == entry  # every compared field, the document's too
        assert back.path == entry.path and isinstance(back.path, Path)
        # Built without __init__: the same instance attributes as an entry built normally.
        assert vars(back).keys() == vars(replace(back)).keys() and vars(back.document).keys() == vars(replace(back.document)).keys()
        assert back.document.fields == {k: v for k, v in entry.document.fields.items() if isinstance(v, (str, int, float, bool, type(None)))}
        if entry.usable:
            assert isinstance(back.terms, CachedTerms) and back.terms.doc_terms() == doc_terms(entry)
        else:
            assert back.terms is None


def test_rows_are_written_in_listing_order_with_a_fingerprint(store: MemoryStore) -> None:
    listed, _ = _saved(store)
    loaded = _load(store)
    assert [e.rel_path for _, e in loaded.values()] == [e.rel_path for e in listed]
    assert loaded.in_order is False  # an astral character (the emoji) orders differently in UTF-16: sorted again
    assert loaded.fingerprint == cache.listing_fingerprint(loaded.values())


def test_a_file_of_another_version_or_root_is_ignored_quietly(store: MemoryStore, caplog: pytest.LogCaptureFixture) -> None:
    _, target = _saved(store)
    raw = target.read_bytes()
    head_at = len(cache.MAGIC) + 8
    size = int.from_bytes(raw[len(cache.MAGIC) : head_at], "little")
    head = orjson.loads(raw[head_at : head_at + size])
    for change in ({"version": cache.CACHE_VERSION - 1}, {"root": "/elsewhere"}, {"byteorder": "middle"}):
        new_head = orjson.dumps({**head, **change})
        target.write_bytes(cache.MAGIC + len(new_head).to_bytes(8, "little") + new_head + raw[head_at + size :])
        with caplog.at_level(logging.WARNING):
            assert _load(store) == {}
        assert caplog.records == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # cut short
        lambda raw: raw + b"\0",  # bytes after the last array
        lambda raw: b"{" + raw[1:],  # not the magic line
        lambda raw: b"",
        lambda raw: raw.replace(b'"rel":[', b'"rel":[1,', 1),  # columns of different lengths
        lambda raw: raw.replace(b'"feedback"', b'"feedbacx"', 1),  # a type this version does not know
    ],
)
def test_a_damaged_file_is_named_in_a_warning_and_only_costs_a_full_read(store: MemoryStore, caplog: pytest.LogCaptureFixture, damage) -> None:  # type: ignore[no-untyped-def]
    _, target = _saved(store)
    target.write_bytes(damage(target.read_bytes()))
    with caplog.at_level(logging.WARNING):
        assert _load(store) == {}
    assert any(str(target) in record.getMessage() and "damaged" in record.getMessage() for record in caplog.records)
    scan_module.clear_scan_cache()
    listed = store.list(MemoryScope.PROJECT)  # read from the files again
    assert sorted(e.rel_path for e in listed) == sorted(ODD_FILES)
    scan_module.wait_for_cache_saves()
    assert len(_load(store)) == len(ODD_FILES)  # and the file written again


def test_a_term_segment_that_does_not_fit_means_tokenising_again(store: MemoryStore) -> None:
    _, target = _saved(store)
    raw = bytearray(target.read_bytes())
    head_at = len(cache.MAGIC) + 8
    size = int.from_bytes(raw[len(cache.MAGIC) : head_at], "little")
    head = orjson.loads(bytes(raw[head_at : head_at + size]))
    head["terms"]["vocab"] = head["terms"]["vocab"][:1]  # term ids now point past the vocabulary
    new_head = orjson.dumps(head)
    target.write_bytes(cache.MAGIC + len(new_head).to_bytes(8, "little") + new_head + bytes(raw[head_at + size :]))
    loaded = _load(store)
    assert len(loaded) == len(ODD_FILES) and all(entry.terms is None for _, entry in loaded.values())


def test_the_cache_never_touches_a_memory_file(store: MemoryStore) -> None:
    root = store.paths.project_root
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*.md")}
    _, target = _saved(store)
    target.write_bytes(b"garbage")
    scan_module.clear_scan_cache()
    store.list(MemoryScope.PROJECT)
    scan_module.wait_for_cache_saves()
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*.md")} == before


def test_writing_removes_the_old_json_cache(store: MemoryStore) -> None:
    target = cache.cache_file(os.path.realpath(store.paths.project_root), MemoryScope.PROJECT)
    legacy = target.with_suffix(".json")
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text('{"version": 3, "entries": []}', encoding="utf-8")
    _saved(store)
    assert target.is_file() and not legacy.exists()
    assert oct(target.stat().st_mode & 0o777) == "0o600"


def test_the_bulk_built_fields_match_the_dataclasses() -> None:
    from app.context.memory.document import ParsedMemory
    from app.context.memory.entry import MemoryEntry

    # decode_cache fills these names by hand: a field added to either class must be added there too.
    assert [f.name for f in fields(ParsedMemory)] == ["type", "name", "title", "description", "body", "fields", "frontmatter_text", "problems"]
    assert [f.name for f in fields(MemoryEntry)] == ["scope", "path", "rel_path", "document", "mtime", "size", "problems", "pinned", "terms"]
