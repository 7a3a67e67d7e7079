"""Optional semantic recall: the setting, the model loaded beside the session, and the fused choice.

``memory.semantic``: ``auto`` (the default) uses embeddings when the extra is
installed (``pip install 'agentctx-tui[embeddings]'``, app/context/memory/
embedder.py says which model and why), ``on`` asks for them and says in one line
when the extra is missing, ``off`` never loads it. The model loads in a daemon
thread started with the session; until it has loaded (and until the memories'
vectors exist) recall is BM25F alone, so nothing waits for it beyond the turn's
usual recall wait (``memory.recall_wait_seconds``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from app.dataclass import dataclass
from typing import TYPE_CHECKING

from app.context.memory.embedder import INSTALL_HINT, Embedder, extra_installed, load_wordllama
from app.context.memory.fusion import SemanticCutoff, fuse

# Only types here: the ranker loads with the first recall that has memories, the vector cache
# (hashlib, base64, json) with the model, in its own thread.
if TYPE_CHECKING:
    from app.context.memory.entry import MemoryEntry
    from app.context.memory.ranking import Ranked
    from app.context.memory.vector_cache import VectorCache

log = logging.getLogger(__name__)

MODES = ("auto", "on", "off")
FUSED = "fused"  # the recall path's name in reminders and /context detail


def missing_extra_message() -> str:
    return f"memory.semantic is on but the embeddings extra is not installed: {INSTALL_HINT} (recall uses keywords only)"


@dataclass(frozen=True)
class SemanticChoice:
    """What the setting resolved to: whether to load the model, and what to tell the person (once)."""

    enabled: bool
    notice: str | None = None


def resolve_mode(mode: object, *, installed: Callable[[], bool] = extra_installed) -> SemanticChoice:
    # YAML 1.1 reads an unquoted on / off as true / false.
    value = {True: "on", False: "off"}.get(mode, str(mode).strip().lower()) if isinstance(mode, bool) else str(mode).strip().lower()
    if value not in MODES:
        return SemanticChoice(
            installed(), f"memory.semantic must be one of auto, on, off (got {mode!r}); auto is used"
        )
    if value == "off":
        return SemanticChoice(False)
    if installed():
        return SemanticChoice(True)
    return SemanticChoice(False, missing_extra_message() if value == "on" else None)


class SemanticRecall:
    """The embedder (loaded in the background) and the memories' vectors, used when ready."""

    def __init__(self, load: Callable[[], Embedder] = load_wordllama, cutoff: SemanticCutoff = SemanticCutoff()) -> None:
        self._load = load
        self.cutoff = cutoff
        self._cache: VectorCache | None = None
        self._started = False
        self._ready = threading.Event()
        self.warmed = threading.Event()  # set when warm_up has embedded the memories it was given
        self.error: str | None = None
        self._lock = threading.Lock()

    @classmethod
    def with_embedder(cls, embedder: Embedder, cutoff: SemanticCutoff = SemanticCutoff()) -> SemanticRecall:
        """Ready at once (an embedder already in hand: tests, the evaluation)."""
        recall = cls(lambda: embedder, cutoff)
        recall.start(thread=False)
        return recall

    def start(self, *, thread: bool = True) -> None:
        """Begin loading the model (once)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        if thread:
            threading.Thread(target=self._load_now, name="memory-embedder-load", daemon=True).start()
        else:
            self._load_now()

    def _load_now(self) -> None:
        from app.context.memory.vector_cache import VectorCache

        try:
            self._cache = VectorCache(self._load())
        except Exception as error:  # a broken install must not break recall: BM25F goes on alone
            self.error = f"{type(error).__name__}: {error}"
            log.warning("semantic recall could not load its model: %s", self.error)
        finally:
            self._ready.set()

    @property
    def ready(self) -> bool:
        return self._cache is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the model has loaded or failed (a warm-up thread, tests); True when usable."""
        self._ready.wait(timeout)
        return self.ready

    @property
    def vectors(self) -> VectorCache | None:
        return self._cache

    def relevant(
        self,
        query: str,
        entries: Sequence[MemoryEntry],
        keyword: Sequence[Ranked],
        keyword_relevant: Sequence[Ranked],
        *,
        block: bool = False,
    ) -> list[MemoryEntry] | None:
        """The fused relevant memories, best first; None when the model or the vectors are not ready
        (the caller then uses BM25F's choice). The first call with memories starts loading the model."""
        similar = self.similar(query, entries, block=block)
        return None if similar is None else fuse(keyword, keyword_relevant, similar, self.cutoff)

    def similar(self, query: str, entries: Sequence[MemoryEntry], *, block: bool = False) -> list[tuple[MemoryEntry, float]] | None:
        """The embedding ranking (the 64 most similar memories, best first, with their cosine); None
        when the model or the vectors are not ready. ``block``: wait for the model and the vectors
        (the CLI and the evaluation, which have no turn to keep fast)."""
        if not entries or not query.strip():
            return None
        if block:
            self.start(thread=False)
            self.wait()
        cache = self._cache
        if cache is None:
            self.start()  # in a thread, once: a session without memories never loads the model
            return None
        matrix = cache.vectors(entries, block=block)
        if matrix is None:
            return None
        import numpy as np

        query_vector = cache.embedder.embed([query])[0]
        # einsum, not ``@``: the BLAS product starts its thread pool and, on a loaded 2-core machine,
        # took 6.8 ms for 4,896 x 256 against 0.57 ms for einsum's single loop (bench: --candidates).
        similarities = np.einsum("ij,j->i", matrix, query_vector)

        count = min(len(entries), 64)
        best = np.argpartition(-similarities, count - 1)[:count] if len(entries) > count else np.arange(len(entries))
        return sorted(((entries[i], float(similarities[i])) for i in best), key=lambda item: (-item[1], item[0].rel_path))

    @property
    def model_name(self) -> str:
        cache = self._cache
        return cache.embedder.name if cache is not None else ""


def semantic_from_setting(
    mode: object, *, interactive: bool = True, installed: Callable[[], bool] = extra_installed
) -> tuple[SemanticRecall | None, str | None]:
    """The session's semantic recall for ``memory.semantic`` (not loading yet), and a notice to show.

    ``auto`` leaves headless runs (``-p``) without it: their one turn's recall is settled long before
    the model has loaded (0.4 to 1 s against a 150 ms wait), so loading it would only cost CPU.
    """
    choice = resolve_mode(mode, installed=installed)
    if choice.enabled and not interactive and str(mode).strip().lower() == "auto":
        return None, choice.notice
    return (SemanticRecall() if choice.enabled else None), choice.notice


def warm_up(semantic: SemanticRecall, entries: Callable[[], Sequence[MemoryEntry]]) -> None:
    """In a warm-up thread: load the model, then embed every memory that has no vector yet."""
    try:
        usable = [e for e in entries() if e.usable]
        if not usable:
            return  # nothing to embed: the model loads when the first memory is recalled from
        semantic.start(thread=False)
        semantic.wait()  # started earlier in a thread of its own: wait for that load
        cache = semantic.vectors
        if cache is not None:
            cache.vectors(usable, block=True)
    finally:
        semantic.warmed.set()
