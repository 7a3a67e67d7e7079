"""Listing memories reuses what it parsed while a file's stat is unchanged, and never serves a stale one."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from app.context.memory.paths import MemoryScope
from app.context.memory.store import MemoryStore
from tests.unit.memory_support import make_paths, memory_text, put

# The package re-exports a function called ``scan``; the module is what is patched here.
scan_module = importlib.import_module("app.context.memory.scan")


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    scan_module.clear_scan_cache()
    return MemoryStore(make_paths(tmp_path))


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = scan_module.read_capped

    def counting(path: str, *args: object, **kwargs: object) -> object:
        reads.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(scan_module, "read_capped", counting)
    return reads


def test_an_unchanged_file_is_not_read_again(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))  # every file counts as old enough
    root = store.paths.project_root
    put(root, "feedback/a.md", memory_text("A", "first", "feedback", "alpha"))
    put(root, "user/b.md", memory_text("B", "second", "user", "beta"))
    reads = _count_reads(monkeypatch)
    first = store.list(MemoryScope.PROJECT)
    assert sorted(reads) == ["a.md", "b.md"]
    second = store.list(MemoryScope.PROJECT)
    assert sorted(reads) == ["a.md", "b.md"]  # nothing read the second time
    assert [e.body for e in second] == ["alpha", "beta"] and second[0] is first[0]

    put(root, "feedback/a.md", memory_text("A", "first, edited", "feedback", "alpha and more"))
    third = store.list(MemoryScope.PROJECT)
    assert reads.count("a.md") == 2 and reads.count("b.md") == 1
    assert [e.description for e in third] == ["first, edited", "second"]

    (root / "user" / "b.md").unlink()
    assert [e.rel_path for e in store.list(MemoryScope.PROJECT)] == ["feedback/a.md"]


def test_a_file_rewritten_right_after_it_was_read_is_read_again(store: MemoryStore) -> None:
    root = store.paths.project_root
    put(root, "feedback/a.md", memory_text("A", "one", "feedback", "xxxx"))
    assert [e.description for e in store.list(MemoryScope.PROJECT)] == ["one"]
    # Same size, within the same clock tick: only the racy-file rule tells the two apart.
    put(root, "feedback/a.md", memory_text("A", "two", "feedback", "yyyy"))
    [entry] = store.list(MemoryScope.PROJECT)
    assert (entry.description, entry.body) == ("two", "yyyy")


def test_symlinks_are_always_read_again(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))
    root = store.paths.project_root
    target = put(root, "feedback/real.md", memory_text("Real", "d", "feedback", "body"))
    (root / "feedback" / "link.md").symlink_to(target)
    store.list(MemoryScope.PROJECT)
    reads = _count_reads(monkeypatch)
    store.list(MemoryScope.PROJECT)
    assert reads == ["link.md"]


def test_a_new_process_reads_the_cache_file_instead_of_the_files(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))
    root = store.paths.project_root
    put(root, "feedback/a.md", memory_text("A", "first", "feedback", "alpha"))
    put(root, "user/b.md", memory_text("B", "second", "user", "beta"))
    first = store.list(MemoryScope.PROJECT)
    scan_module.wait_for_cache_saves()
    cache = scan_module.cache_file(str(root.resolve()), MemoryScope.PROJECT)
    assert cache.is_file() and not str(cache).startswith(str(store.paths.workspace_root))  # never in the repository
    scan_module.clear_scan_cache()  # what a new process starts with
    reads = _count_reads(monkeypatch)
    again = store.list(MemoryScope.PROJECT)
    assert reads == [] and [(e.rel_path, e.title, e.description, e.body, e.type) for e in again] == [(e.rel_path, e.title, e.description, e.body, e.type) for e in first]
    put(root, "user/b.md", memory_text("B", "second, edited", "user", "beta"))
    scan_module.clear_scan_cache()
    assert [e.description for e in store.list(MemoryScope.PROJECT)] == ["first", "second, edited"] and reads == ["b.md"]


def test_a_damaged_cache_file_only_costs_a_full_read(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))
    root = store.paths.project_root
    put(root, "feedback/a.md", memory_text("A", "first", "feedback", "alpha"))
    store.list(MemoryScope.PROJECT)
    scan_module.wait_for_cache_saves()
    scan_module.cache_file(str(root.resolve()), MemoryScope.PROJECT).write_text("{not json", encoding="utf-8")
    scan_module.clear_scan_cache()
    assert [e.description for e in store.list(MemoryScope.PROJECT)] == ["first"]


def test_no_silent_cap_a_directory_past_the_depth_limit_is_named(store: MemoryStore) -> None:
    root = store.paths.project_root
    for index in range(25_0):
        put(root, f"project/m{index:04}.md", memory_text(f"m{index}", "d", "project"))
    put(root, "project/a/b/c/deep.md", memory_text("deep", "too deep", "project"))
    assert len(store.list(MemoryScope.PROJECT)) == 250
    assert scan_module.scan_notes(root) == ["project/a/b/c/ is more than 4 levels deep; its files were left out"]
