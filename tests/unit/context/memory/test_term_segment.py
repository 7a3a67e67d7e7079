"""Recall from a cache file's term segment ranks exactly as recall from tokenised memories does."""

from __future__ import annotations

import importlib
import random
from dataclasses import replace
from pathlib import Path

import pytest

from app.context.memory.paths import MemoryScope
from app.context.memory.ranking import Bm25fIndex, _indexes, rank
from app.context.memory.recall import list_recall_candidates, plan_recall
from app.context.memory.store import MemoryStore
from app.context.memory.term_segment import CachedTerms
from app.context.memory.terms import query_terms
from tests.unit.memory_support import make_paths, memory_text, put

scan_module = importlib.import_module("app.context.memory.scan")
ranking = importlib.import_module("app.context.memory.ranking")
WORDS = "deploy database test mock release pipeline dashboard ticket incident latency cache schema review owner token".split()
QUESTIONS = ["why do the database tests fail?", "who owns the release pipeline", "latency dashboard", "pelican", "token budget review"]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStore:
    monkeypatch.setattr(scan_module, "RACY_NS", -(10**18))
    monkeypatch.setattr(ranking, "SAVE_TERMS_AFTER", 1)
    scan_module.clear_scan_cache()
    _indexes.clear()
    store = MemoryStore(make_paths(tmp_path))
    rng = random.Random(7)
    for n in range(60):
        words = lambda count: " ".join(rng.choice(WORDS) for _ in range(count))  # noqa: E731
        kind = ("user", "feedback", "project", "reference")[n % 4]
        put(store.paths.project_root, f"{kind}/m{n:02}.md", memory_text(f"{words(2)} {n}", words(rng.randint(3, 9)), kind, words(rng.randint(0, 30))))
    put(store.paths.project_root, "project/pelican.md", memory_text("pelican", "the staging database is called pelican", "project"))
    yield store
    scan_module.clear_scan_cache()
    _indexes.clear()


def _new_process() -> None:
    scan_module.wait_for_cache_saves()
    scan_module.clear_scan_cache()
    _indexes.clear()


def _scores(entries: list, *, tokenised: bool) -> dict[str, list[tuple[str, float]]]:
    """Each question's ranking by relative path, from a fresh index (tokenising copies when asked)."""
    usable = [replace(e, terms=None) if tokenised else e for e in entries if e.usable]
    index = Bm25fIndex()
    return {q: [(r.entry.rel_path, r.score) for r in rank(query_terms(q), usable, index=index)] for q in QUESTIONS}


def test_an_unchanged_scope_ranks_the_same_from_its_segment(store: MemoryStore) -> None:
    plan_recall("warm up", list_recall_candidates(store))  # tokenises, then saves the terms
    _new_process()
    entries = store.list(MemoryScope.PROJECT)
    assert all(isinstance(e.terms, CachedTerms) for e in entries if e.usable)
    assert _scores(entries, tokenised=False) == _scores(entries, tokenised=True)


def test_changed_added_and_removed_memories_rank_as_if_tokenised(store: MemoryStore) -> None:
    root = store.paths.project_root
    plan_recall("warm up", list_recall_candidates(store))
    _new_process()
    put(root, "feedback/m01.md", memory_text("release owner", "the release pipeline is owned by Dana", "feedback", "ask Dana"))
    (root / "user" / "m00.md").unlink()
    put(root, "project/new.md", memory_text("latency", "the latency dashboard moved", "project", "dashboard"))
    entries = store.list(MemoryScope.PROJECT)
    from_segment, tokenised = _scores(entries, tokenised=False), _scores(entries, tokenised=True)
    for question in QUESTIONS:
        assert [p for p, _ in from_segment[question]] == [p for p, _ in tokenised[question]]
        assert [s for _, s in from_segment[question]] == pytest.approx([s for _, s in tokenised[question]], rel=0.03)  # averages within MAX_DRIFT
    plan = plan_recall("who owns the release pipeline?", list_recall_candidates(store))
    assert plan.relevant[0].rel_path == "feedback/m01.md" and all(e.rel_path != "user/m00.md" for e in plan.scored)


def test_a_segment_entry_leaving_and_a_drift_keep_the_index_exact(store: MemoryStore) -> None:
    root = store.paths.project_root
    plan_recall("warm up", list_recall_candidates(store))
    _new_process()
    first = plan_recall("pelican", list_recall_candidates(store))
    assert first.relevant[0].rel_path == "project/pelican.md"
    (root / "project" / "pelican.md").unlink()  # a row of the adopted segment leaves
    assert plan_recall("pelican", list_recall_candidates(store)).relevant == ()
    for n in range(40):  # long new memories: the average lengths drift, every posting is recomputed
        put(root, f"project/long{n:02}.md", memory_text(f"long {n}", "a long memory about the schema", "project", "schema " * 200))
    entries = store.list(MemoryScope.PROJECT)
    plan = plan_recall("schema review", list_recall_candidates(store))
    tokenised = _scores(entries, tokenised=True)["token budget review"]
    assert _scores(entries, tokenised=False)["token budget review"] == tokenised
    assert plan.scored  # still ranks after the rebase


def test_a_save_after_a_small_change_keeps_the_segments_averages(store: MemoryStore) -> None:
    plan_recall("warm up", list_recall_candidates(store))
    _new_process()
    basis = next(e.terms.segment.basis for e in store.list(MemoryScope.PROJECT) if e.usable)
    changed = store.paths.project_root / "feedback" / "m01.md"
    changed.write_text(changed.read_text(encoding="utf-8").rstrip("\n") + " pelican\n", encoding="utf-8")  # one word more
    plan_recall("warm up", list_recall_candidates(store))  # the changed memory tokenised, the cache file saved again
    scan_module.save_term_statistics()
    _new_process()
    entries = store.list(MemoryScope.PROJECT)
    assert {e.terms.segment.basis for e in entries if e.usable} == {basis}  # within MAX_DRIFT: rows copied, not recomputed
    from_segment, tokenised = _scores(entries, tokenised=False), _scores(entries, tokenised=True)
    for question in QUESTIONS:
        assert [p for p, _ in from_segment[question]] == [p for p, _ in tokenised[question]]
