"""Memory vectors: reused while a file is unchanged, recomputed when it is edited, kept on disk per scope
beside the parsed-memory cache and trusted there only when the file's lstat and text still match."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from app.context.memory.paths import MemoryScope
from app.context.memory.scan import cache_file
from app.context.memory.store import MemoryStore
from app.context.memory.vector_cache import INLINE_LIMIT, VectorCache, vectors_file
from tests.unit.context.memory.concept_embedder import ConceptEmbedder
from tests.unit.memory_support import make_paths, memory_text, put


def _store(tmp_path: Path) -> tuple[MemoryStore, Path]:
    paths = make_paths(tmp_path)
    root = paths.project_root
    put(root, "feedback/db.md", memory_text("real database", "never mock postgres", "feedback", "Use the compose db."), time.time() - 60)
    put(root, "project/freeze.md", memory_text("release freeze", "merges stop before a release", "project"), time.time() - 60)
    return MemoryStore(paths), root


def _saved(cache: VectorCache) -> None:
    if cache.last_save is not None:
        cache.last_save.join(10)


def test_an_unchanged_memory_is_not_embedded_again_and_an_edited_one_is(tmp_path: Path) -> None:
    store, root = _store(tmp_path)
    embedder = ConceptEmbedder()
    cache = VectorCache(embedder)
    first = cache.vectors(store.list(MemoryScope.PROJECT))
    assert first is not None and first.shape == (2, 64) and len(embedder.embedded) == 2
    assert cache.vectors(store.list(MemoryScope.PROJECT)) is not None and len(embedder.embedded) == 2  # same files: no work
    put(root, "project/freeze.md", memory_text("release freeze", "deploys halt two days before shipping", "project"), time.time() - 30)
    entries = store.list(MemoryScope.PROJECT)
    second = cache.vectors(entries)
    assert embedder.embedded[2:] == [t for t in embedder.embedded[2:] if "deploys halt" in t] and len(embedder.embedded) == 3
    by_path = {e.rel_path: i for i, e in enumerate(entries)}
    assert np.allclose(second[by_path["feedback/db.md"]], first[0])  # listing order is by path
    assert not np.allclose(second[by_path["project/freeze.md"]], first[1])


def test_a_new_process_reads_the_vectors_file_beside_the_parsed_cache(tmp_path: Path) -> None:
    store, root = _store(tmp_path)
    cache = VectorCache(ConceptEmbedder())
    entries = store.list(MemoryScope.PROJECT)
    cache.vectors(entries)
    _saved(cache)
    target = vectors_file(str(root), "project")
    assert target.parent == cache_file(os.path.realpath(root), MemoryScope.PROJECT).parent and target.is_file()
    assert json.loads(target.read_text())["model"] == "concepts-test"
    # A second cache (a new process) for the same files embeds nothing...
    again = ConceptEmbedder()
    assert VectorCache(again).vectors(entries) is not None and again.embedded == []
    # ...but a file edited since (its lstat differs) is embedded again, and only it.
    put(root, "feedback/db.md", memory_text("real database", "never stub the sql server", "feedback"), time.time() - 30)
    later = ConceptEmbedder()
    VectorCache(later).vectors(store.list(MemoryScope.PROJECT))
    assert len(later.embedded) == 1 and "never stub the sql server" in later.embedded[0]


def test_vectors_of_another_model_or_a_damaged_file_are_not_used(tmp_path: Path) -> None:
    store, root = _store(tmp_path)
    cache = VectorCache(ConceptEmbedder())
    entries = store.list(MemoryScope.PROJECT)
    cache.vectors(entries)
    _saved(cache)
    other = ConceptEmbedder()
    other.name = "another-model"
    VectorCache(other).vectors(entries)
    assert len(other.embedded) == 2
    vectors_file(str(root), "project").write_text("{not json")
    fresh = ConceptEmbedder()
    assert VectorCache(fresh).vectors(entries) is not None and len(fresh.embedded) == 2


def test_many_missing_vectors_are_embedded_in_the_background_not_in_the_turn(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    for n in range(INLINE_LIMIT + 1):
        put(paths.project_root, f"project/m{n:04d}.md", memory_text(f"memory {n}", f"about topic {n}", "project"), time.time() - 60)
    entries = MemoryStore(paths).list(MemoryScope.PROJECT)
    embedder = ConceptEmbedder()
    cache = VectorCache(embedder)
    assert cache.vectors(entries) is None  # the caller uses BM25F alone this time
    deadline = time.monotonic() + 20
    while cache._filling and time.monotonic() < deadline:
        time.sleep(0.02)
    matrix = cache.vectors(entries)
    assert matrix is not None and matrix.shape == (len(entries), 64) and len(embedder.embedded) == len(entries)


def test_a_turn_does_not_wait_for_a_fill_in_progress(tmp_path: Path) -> None:
    import threading

    paths = make_paths(tmp_path)
    for n in range(INLINE_LIMIT + 1):
        put(paths.project_root, f"project/m{n:04d}.md", memory_text(f"memory {n}", f"about topic {n}", "project"), time.time() - 60)
    entries = MemoryStore(paths).list(MemoryScope.PROJECT)
    release = threading.Event()

    class SlowEmbedder(ConceptEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            release.wait(20)
            return super().embed(texts)

    cache = VectorCache(SlowEmbedder())
    assert cache.vectors(entries) is None  # the fill starts, and is now stuck embedding
    time.sleep(0.1)
    # Had it waited for the fill's lock, the fill would have finished first and this would be a matrix.
    assert cache.vectors(entries) is None
    release.set()
    deadline = time.monotonic() + 20
    while cache._filling and time.monotonic() < deadline:
        time.sleep(0.02)
    assert cache.vectors(entries) is not None
