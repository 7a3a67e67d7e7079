"""Start-up skips the MEMORY.md merge only when nothing it depends on changed, and never cuts a large index."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from app.context.memory.paths import MemoryPaths, MemoryScope
from tests.unit.memory_support import make_paths, memory_text, put

scan_module = importlib.import_module("app.context.memory.scan")
index_module = importlib.import_module("app.context.memory.index")
check = importlib.import_module("app.context.memory.index_check")


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryPaths:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))  # every file counts as settled
    monkeypatch.setattr(check, "RACY_NS", -(10**18))
    scan_module.clear_scan_cache()
    paths = make_paths(tmp_path)
    for index in range(5):
        put(paths.project_root, f"feedback/m{index}.md", memory_text(f"Note {index}", f"note number {index}", "feedback"))
    yield paths
    scan_module.clear_scan_cache()


def _merges(monkeypatch: pytest.MonkeyPatch) -> list[MemoryScope]:
    calls: list[MemoryScope] = []
    real = index_module.write_index

    def counting(paths, scope, entries, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(scope)
        return real(paths, scope, entries, **kwargs)

    monkeypatch.setattr(index_module, "write_index", counting)
    return calls


def _new_process() -> None:
    scan_module.wait_for_cache_saves()
    scan_module.clear_scan_cache()


def test_an_index_in_step_is_not_merged_again(paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check.refresh_index(paths, MemoryScope.PROJECT) is True  # the first start writes it
    written = paths.index_file(MemoryScope.PROJECT).read_bytes()
    _new_process()
    merges = _merges(monkeypatch)
    assert check.refresh_index(paths, MemoryScope.PROJECT) is False
    assert merges == [] and paths.index_file(MemoryScope.PROJECT).read_bytes() == written


def test_a_changed_memory_is_merged(paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    check.refresh_index(paths, MemoryScope.PROJECT)
    _new_process()
    put(paths.project_root, "feedback/m2.md", memory_text("Note 2", "a new description", "feedback"))
    merges = _merges(monkeypatch)
    assert check.refresh_index(paths, MemoryScope.PROJECT) is True
    assert merges == [MemoryScope.PROJECT]
    assert "a new description" in paths.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")


def test_an_index_edited_by_a_person_is_merged_and_keeps_their_words(paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    check.refresh_index(paths, MemoryScope.PROJECT)
    _new_process()
    index = paths.index_file(MemoryScope.PROJECT)
    text = index.read_text(encoding="utf-8")
    removed = text.splitlines(keepends=True)[1]
    index.write_text("# my notes\n" + text.replace(removed, ""), encoding="utf-8")
    merges = _merges(monkeypatch)
    assert check.refresh_index(paths, MemoryScope.PROJECT) is True  # its memory's line comes back
    assert merges == [MemoryScope.PROJECT]
    merged = index.read_text(encoding="utf-8")
    assert merged.startswith("# my notes\n") and removed in merged


def test_a_damaged_marker_only_costs_a_merge(paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    check.refresh_index(paths, MemoryScope.PROJECT)
    _new_process()
    check.marker_file(paths.project_root, MemoryScope.PROJECT).write_text("{not json", encoding="utf-8")
    merges = _merges(monkeypatch)
    assert check.refresh_index(paths, MemoryScope.PROJECT) is False  # merged, found in step, not written
    assert merges == [MemoryScope.PROJECT]
    _new_process()
    assert check.refresh_index(paths, MemoryScope.PROJECT) is False and merges == [MemoryScope.PROJECT]  # the marker was rewritten


def test_an_index_just_written_is_not_vouched_for(paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "RACY_NS", 10**18)  # as if every write happened within the racy second
    check.refresh_index(paths, MemoryScope.PROJECT)
    assert not check.marker_file(paths.project_root, MemoryScope.PROJECT).exists()


def test_a_symlinked_memory_always_means_a_merge(paths: MemoryPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    target = put(paths.project_root.parent, "elsewhere.md", memory_text("Linked", "linked note", "feedback"))
    os.symlink(target, paths.project_root / "feedback" / "linked.md")
    check.refresh_index(paths, MemoryScope.PROJECT)
    _new_process()
    merges = _merges(monkeypatch)
    check.refresh_index(paths, MemoryScope.PROJECT)
    assert merges == [MemoryScope.PROJECT]  # its content is read every time: no stamp vouches for it


def test_an_index_past_the_prompt_cap_is_merged_whole(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.project_root, "feedback/db.md", memory_text("db", "real database", "feedback"))
    index = paths.index_file(MemoryScope.PROJECT)
    filler = "".join(f"- note {n}: the build cache lives in /var/cache/ci, clear it on Mondays\n" for n in range(5000))
    original = "# Notes\n" + filler + "- [db](feedback/db.md) \u2014 real database\n## Written by hand at the end\n"
    assert len(original.encode()) > 256 * 1024  # past what a prompt reads of it
    index.write_text(original, encoding="utf-8")
    write = index_module.rebuild_index(paths, MemoryScope.PROJECT)
    assert write.written is False and index.read_text(encoding="utf-8") == original
    put(paths.project_root, "project/new.md", memory_text("new", "a new memory", "project"))
    index_module.rebuild_index(paths, MemoryScope.PROJECT)
    assert index.read_text(encoding="utf-8") == original + "- [new](project/new.md) \u2014 a new memory\n"
