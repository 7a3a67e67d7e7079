"""A change to the memories reaches recall as a delta (entries added, removed, replaced), and what
recall then ranks is what a full rebuild would rank: a changed memory's new words are found and
its old ones are not, a removed memory is never recalled, and a random run of changes leaves the
index equal to one built from scratch."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import pytest

from app.context.memory.paths import MemoryScope
from app.context.memory.ranking import Bm25fIndex, _indexes, rank
from app.context.memory.recall import list_recall_candidates, plan_recall
from app.context.memory.scan import ListingDelta, MemoryListing
from app.context.memory.store import MemoryStore
from app.fsutil import atomic_write_text
from tests.unit.memory_support import entry, make_paths, memory_text, put

scan_module = importlib.import_module("app.context.memory.scan")
ranking_module = importlib.import_module("app.context.memory.ranking")
recall_module = importlib.import_module("app.context.memory.recall")

WORDS = ["deploy", "database", "release", "pipeline", "ticket", "incident", "latency", "cache", "schema", "review", "branch", "owner", "token", "budget", "queue", "shard", "pelican", "heron", "kestrel", "vpn"]


def _listing(entries, version, delta=None) -> MemoryListing:  # type: ignore[no-untyped-def]
    listing = MemoryListing(entries)
    listing.version = version
    listing.delta = delta
    return listing


def _ranking(index: Bm25fIndex, entries, query: list[str]) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    return [(r.entry.rel_path, r.score) for r in rank(query, entries, index=index)]


def test_a_changed_memory_is_found_by_its_new_words_and_no_longer_by_its_old() -> None:
    old = entry("Staging", "the staging database is called pelican", rel_path="project/staging.md")
    other = entry("Deploys", "deploys go out on tuesday", rel_path="project/deploys.md")
    index = Bm25fIndex()
    first = _listing([other, old], (1,))
    assert [r.entry for r in rank(["pelican"], first, index=index)] == [old]
    new = entry("Staging", "the staging database is now called heron", rel_path="project/staging.md")
    second = _listing([other, new], (2,), ListingDelta((1,), (new,), (old,)))
    assert [r.entry for r in rank(["heron"], second, index=index)] == [new]
    assert rank(["pelican"], second, index=index) == []
    assert len(index) == 2


def test_a_removed_memory_is_never_recalled() -> None:
    gone = entry("Kestrel", "the kestrel queue drains nightly", rel_path="project/kestrel.md")
    kept = entry("Deploys", "deploys go out on tuesday", rel_path="project/deploys.md")
    index = Bm25fIndex()
    rank(["kestrel"], _listing([kept, gone], (1,)), index=index)
    after = _listing([kept], (2,), ListingDelta((1,), (), (gone,)))
    assert rank(["kestrel"], after, index=index) == []
    assert rank(["kestrel", "queue", "drains", "nightly"], after, index=index) == []
    assert len(index) == 1


def test_a_delta_that_does_not_fit_the_index_changes_nothing_and_the_listing_decides() -> None:
    a = entry("Alpha", "pelican notes", rel_path="project/a.md")
    b = entry("Beta", "heron notes", rel_path="project/b.md")
    stranger = entry("Gamma", "kestrel notes", rel_path="project/c.md")
    index = Bm25fIndex()
    rank(["notes"], _listing([a, b], (1,)), index=index)
    # It claims to remove an entry the index never held: refused, nothing changed...
    assert index._apply(ListingDelta((1,), (), (stranger,)), 1) is False
    assert len(index) == 2 and [r.entry for r in rank(["heron"], _listing([a, b], (1,)), index=index)] == [b]
    # ...and a listing carrying it is synced by comparing its entries instead: b is gone, as listed.
    listing = _listing([a], (2,), ListingDelta((1,), (), (stranger,)))
    assert rank(["heron"], listing, index=index) == [] and len(index) == 1


def _corpus(rng: random.Random, count: int) -> list:  # type: ignore[type-arg]
    return [_random_entry(rng, f"project/m{i:03}.md") for i in range(count)]


def _random_entry(rng: random.Random, rel: str):  # type: ignore[no-untyped-def]
    words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n))
    return entry(words(2), words(rng.randint(3, 9)), words(rng.randint(0, 30)), rel_path=rel)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("drift", [0.0, 0.01])
def test_random_changes_applied_as_deltas_rank_as_a_full_rebuild(seed: int, drift: float, monkeypatch: pytest.MonkeyPatch) -> None:
    # With MAX_DRIFT 0 every change recomputes the postings, so the delta-fed index must equal one
    # built from scratch; with the shipped 1 % it must equal one fed the whole listing each time.
    monkeypatch.setattr(ranking_module, "MAX_DRIFT", drift)
    rng = random.Random(seed)
    entries = sorted(_corpus(rng, 120), key=lambda e: e.rel_path)
    incremental, whole = Bm25fIndex(), Bm25fIndex()
    version = (0,)
    incremental.sync(_listing(entries, version))
    whole.sync(list(entries))
    serial = 120
    for step in range(1, 40):
        added, removed = [], []
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            if roll < 0.4 and len(entries) > 10:  # a changed memory: old entry out, new one in
                at = rng.randrange(len(entries))
                removed.append(entries[at])
                entries[at] = _random_entry(rng, entries[at].rel_path)
                added.append(entries[at])
            elif roll < 0.7 and len(entries) > 10:
                gone = entries.pop(rng.randrange(len(entries)))
                if gone in added:
                    added.remove(gone)
                else:
                    removed.append(gone)
            else:
                serial += 1
                added.append(_random_entry(rng, f"project/n{serial:03}.md"))
                entries.append(added[-1])
        listing = _listing(list(entries), (step,), ListingDelta(version, tuple(added), tuple(removed)))
        version = (step,)
        query = rng.sample(WORDS, 3)
        by_delta = _ranking(incremental, listing, query)
        by_pass = _ranking(whole, list(entries), query)
        assert by_delta == by_pass
        if drift == 0.0:
            assert by_delta == _ranking(Bm25fIndex(), list(entries), query)
        assert len(incremental) == len(entries)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))  # every file and directory counts as settled
    scan_module.clear_scan_cache()
    _indexes.clear()
    yield MemoryStore(make_paths(tmp_path))
    scan_module.watch_scopes(False)
    scan_module.clear_scan_cache()


def _watched(store: MemoryStore) -> None:
    scan_module.watch_scopes(True)
    store.list(MemoryScope.PROJECT)
    for state in scan_module._states.values():
        assert state.watcher is not None and state.watcher.wait_ready(10)
    store.list(MemoryScope.PROJECT)
    assert all(state.trusted for state in scan_module._states.values())


def _fresh_plan(store: MemoryStore, query: str) -> list[str]:
    """The plan a new process would make: nothing kept, every file listed and indexed again."""
    scan_module.watch_scopes(False)
    scan_module.clear_scan_cache()
    _indexes.clear()
    recall_module._usable = ((), MemoryListing())
    plan = plan_recall(query, list_recall_candidates(store))
    return [e.rel_path for e in plan.relevant]


def test_the_programs_own_writes_reach_recall_as_a_delta_and_rank_as_a_fresh_process(store: MemoryStore) -> None:
    root = store.paths.project_root
    for index in range(20):
        put(root, f"feedback/m{index:02}.md", memory_text(f"Note {index}", f"filler note number {index}", "feedback", "nothing"))
    put(root, "project/staging.md", memory_text("Staging", "the staging database is called pelican", "project", "eu-west"))
    _watched(store)
    before = list_recall_candidates(store)
    assert plan_recall("pelican", before).relevant[0].rel_path == "project/staging.md"
    # An atomic rewrite of one memory (what the memory agents do), a new one, and a removal.
    atomic_write_text(root / "project" / "staging.md", memory_text("Staging", "the staging database is now called heron", "project", "eu-west"))
    atomic_write_text(root / "project" / "kestrel.md", memory_text("Kestrel", "the kestrel queue drains nightly", "project", "x"))
    (root / "feedback" / "m03.md").unlink()
    after = list_recall_candidates(store)
    delta = after.delta
    assert delta is not None and delta.before == before.version
    assert sorted(e.rel_path for e in delta.added) == ["project/kestrel.md", "project/staging.md"]
    assert sorted(e.rel_path for e in delta.removed) == ["feedback/m03.md", "project/staging.md"]
    assert [e.rel_path for e in after] == sorted(e.rel_path for e in after) and len(after) == 21
    # The usable entries recall keeps were patched, not filtered again: the same, in listing order.
    assert list(plan_recall("heron", after).candidates) == [e for e in after if e.usable]
    heron = [e.rel_path for e in plan_recall("what is the staging database called now? heron", after).relevant]
    pelican = [e.rel_path for e in plan_recall("pelican", after).relevant]
    kestrel = [e.rel_path for e in plan_recall("when does the kestrel queue drain?", after).relevant]
    removed = plan_recall("filler note number 3", after).relevant
    assert heron == ["project/staging.md"] and pelican == [] and kestrel == ["project/kestrel.md"]
    assert "feedback/m03.md" not in [e.rel_path for e in removed]
    assert heron == _fresh_plan(store, "what is the staging database called now? heron")
    assert kestrel == _fresh_plan(store, "when does the kestrel queue drain?")
    assert _fresh_plan(store, "pelican") == []


def test_a_write_relists_its_directory_without_an_lstat_per_file(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    root = store.paths.project_root
    for index in range(20):
        put(root, f"project/m{index:02}.md", memory_text(f"Note {index}", f"filler note number {index}", "project", "nothing"))
    _watched(store)
    seen: list[str] = []
    real = os.lstat

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith(".md"):
            seen.append(os.path.basename(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(scan_module.os, "lstat", counting)
    atomic_write_text(root / "project" / "m05.md", memory_text("Note 5", "rewritten with the word osprey", "project", "x"))
    listing = store.list(MemoryScope.PROJECT)
    assert seen == ["m05.md"]  # the one name whose inode changed; the other 19 were not looked at
    assert "osprey" in next(e.description for e in listing if e.rel_path == "project/m05.md")
    assert len(listing) == 20


def test_a_write_in_the_root_keeps_every_listed_memory_and_sees_its_own_files(store: MemoryStore) -> None:
    # The root holds MEMORY.md (rewritten with every memory write) and may hold loose memories: its
    # relisting must keep the type folders' entries and see a root-level file come and go.
    root = store.paths.project_root
    for index in range(5):
        put(root, f"feedback/m{index:02}.md", memory_text(f"Note {index}", f"filler note number {index}", "feedback", "x"))
    put(root, "loose.md", memory_text("Loose", "a loose project note about ospreys", "project", "y"))
    _watched(store)
    before = [e.rel_path for e in store.list(MemoryScope.PROJECT)]
    atomic_write_text(root / "MEMORY.md", "- [Loose](loose.md) — a loose project note\n")
    assert [e.rel_path for e in store.list(MemoryScope.PROJECT)] == before  # the index is not a memory
    atomic_write_text(root / "another.md", memory_text("Another", "another loose note about herons", "project", "z"))
    (root / "loose.md").unlink()
    after = store.list(MemoryScope.PROJECT)
    assert [e.rel_path for e in after] == sorted([*[r for r in before if r != "loose.md"], "another.md"])
    assert [e.rel_path for e in plan_recall("herons", list_recall_candidates(store)).relevant] == ["another.md"]
    assert plan_recall("ospreys", list_recall_candidates(store)).relevant == ()
