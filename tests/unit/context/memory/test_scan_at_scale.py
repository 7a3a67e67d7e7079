"""Listing and recall at scale: a watched scope looks only at what changed, a new process finds the
memories' terms in the cache file, and no shortcut ever serves a stale listing."""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

import pytest

from app.context.memory.paths import MemoryScope
from dataclasses import replace

from app.context.memory.ranking import _indexes, doc_terms
from app.context.memory.term_segment import CachedTerms
from app.context.memory.recall import list_recall_candidates, plan_recall
from app.context.memory.store import MemoryStore
from app.fsutil import atomic_write_text
from tests.unit.memory_support import make_paths, memory_text, put

scan_module = importlib.import_module("app.context.memory.scan")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))  # every file and directory counts as settled
    scan_module.clear_scan_cache()
    _indexes.clear()
    yield MemoryStore(make_paths(tmp_path))
    scan_module.watch_scopes(False)
    scan_module.clear_scan_cache()


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = scan_module.read_capped

    def counting(path: str, *args: object, **kwargs: object) -> object:
        reads.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(scan_module, "read_capped", counting)
    return reads


def _lstats(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the listing lstat-ed one by one (the full walk uses DirEntry.stat instead)."""
    seen: list[str] = []
    real = os.lstat

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith(".md"):  # realpath lstat-s the root's own components
            seen.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(scan_module.os, "lstat", counting)
    return seen


def _watched(store: MemoryStore) -> None:
    scan_module.watch_scopes(True)
    store.list(MemoryScope.PROJECT)  # starts the watcher
    for state in scan_module._states.values():
        assert state.watcher is not None and state.watcher.wait_ready(10)
    store.list(MemoryScope.PROJECT)  # the full listing after the watches are in place
    assert all(state.trusted for state in scan_module._states.values())


def _until(predicate, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    """Wait for the watcher's report (a wait for correctness; nothing here measures time)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _seed(root: Path, count: int = 30) -> None:
    for index in range(count):
        put(root, f"feedback/m{index:02}.md", memory_text(f"Note {index}", f"filler note number {index}", "feedback", "nothing much"))


def test_a_watched_scope_with_nothing_changed_reads_and_lstats_nothing(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    _seed(store.paths.project_root)
    _watched(store)
    first = store.list(MemoryScope.PROJECT)
    reads, lstats = _reads(monkeypatch), _lstats(monkeypatch)
    second = store.list(MemoryScope.PROJECT)
    assert reads == [] and lstats == []
    assert second.version == first.version and [e.rel_path for e in second] == [e.rel_path for e in first]


def test_an_edit_in_place_is_seen_once_the_watcher_reports_it(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    root = store.paths.project_root
    _seed(root)
    _watched(store)
    before = store.list(MemoryScope.PROJECT).version
    reads = _reads(monkeypatch)
    with (root / "feedback" / "m07.md").open("w", encoding="utf-8") as handle:  # no rename: the directory is unchanged
        handle.write(memory_text("Pelican access", "the pelican database needs a VPN", "feedback", "VPN first"))
    assert _until(lambda: "VPN" in next(e.body for e in store.list(MemoryScope.PROJECT) if e.rel_path == "feedback/m07.md"))
    assert reads == ["m07.md"]  # only the reported file was read again
    listing = store.list(MemoryScope.PROJECT)
    assert listing.version != before and len(listing) == 30
    plan = plan_recall("who needs a vpn for pelican?", list_recall_candidates(store))
    assert [e.rel_path for e in plan.relevant] == ["feedback/m07.md"]


def test_a_new_or_removed_file_is_seen_at_once_without_waiting_for_the_watcher(store: MemoryStore) -> None:
    root = store.paths.project_root
    _seed(root)
    _watched(store)
    atomic_write_text(root / "project" / "kestrel.md", memory_text("Kestrel", "the kestrel queue drains nightly", "project", "x"))
    assert "project/kestrel.md" in [e.rel_path for e in store.list(MemoryScope.PROJECT)]  # the directory's mtime moved
    plan = plan_recall("when does the kestrel queue drain?", list_recall_candidates(store))
    assert [e.rel_path for e in plan.relevant] == ["project/kestrel.md"]
    (root / "feedback" / "m03.md").unlink()
    assert "feedback/m03.md" not in [e.rel_path for e in store.list(MemoryScope.PROJECT)]


def test_a_watcher_that_stopped_is_not_trusted(store: MemoryStore) -> None:
    root = store.paths.project_root
    _seed(root)
    _watched(store)
    for state in scan_module._states.values():
        state.watcher.stop()
        assert _until(lambda: not state.watcher.ready)
    with (root / "feedback" / "m01.md").open("a", encoding="utf-8") as handle:
        handle.write("\nunwatched words\n")
    # No report will come: the listing must look at every file again, and so see the edit.
    assert "unwatched" in next(e.body for e in store.list(MemoryScope.PROJECT) if e.rel_path == "feedback/m01.md")


def test_a_new_process_finds_the_terms_in_the_cache_file(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("app.context.memory.ranking"), "SAVE_TERMS_AFTER", 1)
    root = store.paths.project_root
    _seed(root, 5)
    put(root, "project/staging-db.md", memory_text("Pelican", "the staging database is called pelican", "project", "eu-west"))
    plan_recall("what is the staging database called?", list_recall_candidates(store))  # tokenises, then saves
    scan_module.wait_for_cache_saves()
    scan_module.clear_scan_cache()  # as a new process: nothing in memory, the cache file on disk
    _indexes.clear()
    entries = store.list(MemoryScope.PROJECT)
    assert len(entries) == 6 and all(isinstance(e.terms, CachedTerms) for e in entries)  # read back, not tokenised
    for entry in entries:  # the same terms a fresh tokenisation gives
        assert entry.terms.doc_terms() == doc_terms(replace(entry, terms=None))
    plan = plan_recall("what is the staging database called?", list_recall_candidates(store))
    assert [e.rel_path for e in plan.relevant] == ["project/staging-db.md"]


def test_a_file_changed_between_processes_is_tokenised_from_its_new_text(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("app.context.memory.ranking"), "SAVE_TERMS_AFTER", 1)
    root = store.paths.project_root
    _seed(root, 5)
    put(root, "project/staging-db.md", memory_text("Pelican", "the staging database is called pelican", "project", "eu-west"))
    plan_recall("pelican", list_recall_candidates(store))
    scan_module.wait_for_cache_saves()
    scan_module.clear_scan_cache()
    _indexes.clear()
    put(root, "project/staging-db.md", memory_text("Heron", "the staging database is now called heron", "project", "eu-west"))
    entries = {e.rel_path: e for e in store.list(MemoryScope.PROJECT)}
    assert entries["project/staging-db.md"].terms is None  # its cached terms were for the old text
    assert [e.rel_path for e in plan_recall("heron", list_recall_candidates(store)).relevant] == ["project/staging-db.md"]
    assert plan_recall("pelican", list_recall_candidates(store)).relevant == ()



def test_a_write_relists_only_its_own_directory(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    root = store.paths.project_root
    _seed(root)
    put(root, "project/old.md", memory_text("Old", "an old project note", "project", "x"))
    _watched(store)
    before = {e.rel_path: e for e in store.list(MemoryScope.PROJECT)}
    listed: list[str] = []
    real = os.scandir

    def counting(path):  # type: ignore[no-untyped-def]
        listed.append(os.path.basename(str(path)))
        return real(path)

    monkeypatch.setattr(scan_module.os, "scandir", counting)
    atomic_write_text(root / "project" / "new.md", memory_text("New", "a new project note", "project", "y"))
    after = store.list(MemoryScope.PROJECT)
    assert listed == ["project"]  # feedback/ (30 files) was not looked at
    assert [e.rel_path for e in after] == sorted([*before, "project/new.md"])
    assert all(e is before[e.rel_path] for e in after if e.rel_path != "project/new.md")  # unchanged entries reused
    (root / "project" / "old.md").unlink()
    assert "project/old.md" not in [e.rel_path for e in store.list(MemoryScope.PROJECT)]


def test_a_watched_session_saves_its_few_edits_at_exit(store: MemoryStore) -> None:
    from app.context.memory.scan_cache import decode_cache

    root = store.paths.project_root
    _seed(root, 5)
    _watched(store)
    scan_module.wait_for_cache_saves()
    target = scan_module.cache_file(os.path.realpath(root), MemoryScope.PROJECT)
    atomic_write_text(root / "project" / "late.md", memory_text("Late", "written late in the session", "project", "z"))
    assert "project/late.md" in [e.rel_path for e in store.list(MemoryScope.PROJECT)]
    scan_module.wait_for_cache_saves()
    saved = lambda: [e.rel_path for _, e in decode_cache(target.read_bytes(), os.path.realpath(root), MemoryScope.PROJECT, str(root)).values()]  # noqa: E731
    assert "project/late.md" not in saved()  # one edit does not rewrite the whole cache file mid-session
    scan_module.save_unsaved_edits()  # what the interpreter runs at exit
    assert "project/late.md" in saved()


def _count_scandirs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every directory the listing reads from now on (a listing that is reused reads none)."""
    scanned: list[str] = []
    real = scan_module.os.scandir

    def counting(path):  # type: ignore[no-untyped-def]
        scanned.append(str(path))
        return real(path)

    monkeypatch.setattr(scan_module.os, "scandir", counting)
    return scanned


def test_a_warm_up_reuses_the_last_listing_and_a_turn_still_sees_an_edit(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    root = store.paths.project_root
    _seed(root)
    first = store.list(MemoryScope.PROJECT)
    scanned = _count_scandirs(monkeypatch)
    warm = list_recall_candidates(store, since=0)  # what the start-up pre-warm uses
    assert scanned == [] and [e.rel_path for e in warm] == [e.rel_path for e in first]
    with (root / "feedback" / "m05.md").open("w", encoding="utf-8") as handle:  # in place: no directory moves
        handle.write(memory_text("Osprey", "the osprey runbook is in the wiki", "feedback", "x"))
    plan = plan_recall("where is the osprey runbook?", list_recall_candidates(store))  # a turn lists afresh
    assert scanned and [e.rel_path for e in plan.relevant] == ["feedback/m05.md"]


def test_a_listing_begun_after_the_question_serves_it_and_an_older_one_does_not(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    root = store.paths.project_root
    _seed(root)
    asked = time.monotonic_ns()
    listed = store.list(MemoryScope.PROJECT)  # began after the question was asked
    scanned = _count_scandirs(monkeypatch)
    assert store.list(MemoryScope.PROJECT, since=asked).version == listed.version and scanned == []
    store.list(MemoryScope.PROJECT, since=time.monotonic_ns())  # asked after that listing began: listed afresh
    assert scanned


def test_a_headless_first_turn_is_asked_before_start_up_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.config import MemorySettings
    from app.context.memory import recall_task
    from app.context.memory.manager import MemoryManager
    from app.paths import Paths

    asked: list[int | None] = []
    monkeypatch.setattr(recall_task, "plan_from_store", lambda *a, asked_at=None, **k: asked.append(asked_at) or plan_recall("", []))
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    import asyncio

    async def turns(interactive: bool) -> None:
        before = time.monotonic_ns()
        manager = MemoryManager(Paths.for_cwd(workspace), session_id="s", settings=MemorySettings(), interactive=interactive)
        manager.mem.project_root.mkdir(parents=True, exist_ok=True)  # recall looks only where a memory folder is
        for _ in range(2):
            submitted = time.monotonic_ns()
            manager.start_recall("what is the staging database called?")
            await asyncio.sleep(0.05)
            assert asked[-1] is not None and asked[-1] >= (before if not interactive and len(asked) % 2 else submitted)
            if not interactive and len(asked) % 2:
                assert asked[-1] < submitted  # the headless prompt was known when the runtime was built

    asyncio.run(turns(False))
    asyncio.run(turns(True))
    assert len(asked) == 4
