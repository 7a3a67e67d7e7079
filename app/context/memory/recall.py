"""Recall: which memories to put before the person's request, and the reminder that carries them.

With a provider, a model picks from the memories' headers; if it errs or
takes longer than the timeout, the heuristic scorer decides instead. Either
way at most five memories are recalled, and none whose text trips a secret
rule: a stored credential must not travel into a prompt.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from app.dataclass import dataclass
from enum import StrEnum
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING

from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import MemoryScope
from app.context.memory.prompt import recall_reminder
from app.context.memory.scan import ListingDelta, MemoryListing
from app.context.memory.secrets import contains_secret
from app.context.memory.selector import (
    RECALL_SELECTOR_TIMEOUT_SECONDS,
    RecallSelectorError,
    SelectorRequest,
    build_selector_request,
    parse_selection,
)
from app.context.memory.store import MemoryStore
from app.context.memory.selector import filter_active_tool_memories
from app.context.memory.textunits import utf16_sort_key
from app.core.llm.errors import LLMError
from app.core.llm.provider import Provider
from app.core.llm.side_query import side_query

if TYPE_CHECKING:
    from app.context.memory.semantic import SemanticRecall

log = logging.getLogger(__name__)

MAX_RELEVANT_DOCS = 5
MAX_FAST_RECALL_DOCS = 2


class RecallStrategy(StrEnum):
    NONE = "none"
    HEURISTIC = "heuristic"
    MODEL = "model"


@dataclass(frozen=True)
class RecallResult:
    """The memories recalled for a request, how they were chosen, and the reminder that carries them."""

    strategy: RecallStrategy
    entries: tuple[MemoryEntry, ...] = ()
    reminder: str = ""  # the <system-reminder> text; empty when nothing was recalled
    fallback_reason: str | None = None  # why the model's choice was not used


@dataclass(frozen=True)
class RecallPlan:
    """The candidates, those matching the question ranked by BM25F (best first), and the relevant ones."""

    tokens: tuple[str, ...]
    scored: tuple[MemoryEntry, ...]
    relevant: tuple[MemoryEntry, ...]
    candidates: tuple[MemoryEntry, ...] = ()
    recent_tools: tuple[str, ...] = ()
    how: str = "heuristic"  # "fused" when semantic recall took part in choosing ``relevant``
    # Which rankers took part ("bm25f", "semantic") and, per relevant memory (same order), their
    # scores: what ``agentctx-tui memory recall --json`` shows.
    rankers: tuple[str, ...] = ()
    scores: tuple[dict[str, float], ...] = ()

    @property
    def ranked(self) -> tuple[MemoryEntry, ...]:
        """Every candidate: the matching ones best first, then the rest in listing order (for the selector)."""
        seen = {id(e) for e in self.scored}
        rest = [e for e in self.candidates if id(e) not in seen]
        if self.recent_tools:
            rest = filter_active_tool_memories(rest, self.recent_tools)
        return self.scored + tuple(rest)


def list_recall_candidates(store: MemoryStore, *, since: int | None = None) -> list[MemoryEntry]:
    """The project's memories, then the person's. A user scope that cannot be read
    only costs its memories, never the project's. ``since``: see MemoryStore.list."""
    project = store.list(MemoryScope.PROJECT, since=since)
    try:
        user = store.list(MemoryScope.USER, since=since)
    except OSError as error:
        log.warning("user memories could not be listed: %s", error)
        user = MemoryListing()
    entries = MemoryListing(project + user)
    # Same versions, same entries: recall then skips re-checking them (see ranking.Bm25fIndex.sync).
    versions = (getattr(project, "version", ()), getattr(user, "version", ()))
    entries.version = ("project+user", *versions) if all(versions) else ()
    entries.delta = _combined_delta(entries.version, (project, user))
    return entries


_last_combined: tuple[object, ...] = ()


def _combined_delta(version: tuple[object, ...], parts: Sequence[Sequence[MemoryEntry]]) -> ListingDelta | None:
    """The change from the last combined listing, when every scope's listing says how it changed
    since then (or did not change): recall then applies it instead of comparing 50,000 entries."""
    global _last_combined
    before, _last_combined = _last_combined, version
    if not version or len(before) != len(version) or before[0] != version[0]:
        return None
    added: list[MemoryEntry] = []
    removed: list[MemoryEntry] = []
    for part, old, new in zip(parts, before[1:], version[1:]):
        if old == new:
            continue
        delta = getattr(part, "delta", None)
        if delta is None or delta.before != old:
            return None
        added += delta.added
        removed += delta.removed
    return ListingDelta(before, tuple(added), tuple(removed))


_usable: tuple[tuple[object, ...], MemoryListing] = ((), MemoryListing())


def _usable_entries(entries: Sequence[MemoryEntry]) -> MemoryListing:
    """The entries with a type (the rest are never recalled), kept for the listing's version."""
    global _usable
    version = getattr(entries, "version", ())
    if version and _usable[0] == version:
        return _usable[1]
    delta = getattr(entries, "delta", None)
    usable = None
    if version and delta is not None and _usable[0] == delta.before:
        usable = _patched(_usable[1], delta)
    if usable is None:
        # compress/attrgetter run in C: 50,000 entries in ~4 ms idle, against ~33 ms for a
        # comprehension calling the entry's property (bench/memory_scale.py's corpus).
        usable = MemoryListing(compress(entries, map(_TYPE_OF, entries)))
    if version:
        usable.version = ("usable", *version)
        if delta is not None:
            usable.delta = ListingDelta(
                ("usable", *delta.before),
                tuple(e for e in delta.added if e.usable),
                tuple(e for e in delta.removed if e.usable),
            )
        _usable = (version, usable)
    return usable


_TYPE_OF = attrgetter("document.type")
# Listings are sorted by scope (project, then user, as list_recall_candidates joins them), then path.
_SCOPE_RANK = {MemoryScope.PROJECT: 0, MemoryScope.USER: 1, MemoryScope.TEAM: 2}


def _listing_key(entry: MemoryEntry) -> tuple[int, bytes]:
    return _SCOPE_RANK.get(entry.scope, 3), utf16_sort_key(entry.rel_path)


def _patched(previous: Sequence[MemoryEntry], delta: ListingDelta) -> MemoryListing | None:
    """The usable entries of the previous listing with the change applied (bisection into the
    sorted list: the cost is the change's, not a pass over 50,000 entries); None when an entry is
    not where the order says it must be (then the caller filters the whole listing)."""
    updated = list(previous)
    for entry in delta.removed:
        if entry.usable:
            at = bisect.bisect_left(updated, _listing_key(entry), key=_listing_key)
            if at >= len(updated) or updated[at] is not entry:
                return None
            del updated[at]
    for entry in delta.added:
        if entry.usable:
            at = bisect.bisect_left(updated, _listing_key(entry), key=_listing_key)
            if at < len(updated) and _listing_key(updated[at]) == _listing_key(entry):
                return None  # two entries for one file: the delta does not fit
            updated.insert(at, entry)
    return MemoryListing(updated)


def plan_recall(
    query: str,
    entries: Sequence[MemoryEntry],
    *,
    recent_tools: Sequence[str] = (),
    excluded_paths: Iterable[str] = (),
    now: float | None = None,
    semantic: SemanticRecall | None = None,
    block_semantic: bool = False,
) -> RecallPlan:
    """The one recall ranking: the turn's prefetch, ``agentctx-tui memory recall`` and
    ``make eval-recall`` all come here, with the same rankers (BM25F, fused with the embeddings
    when ``semantic`` is given and ready; ``block_semantic`` waits for its model and vectors)."""
    excluded = {str(path) for path in excluded_paths}
    usable = [e for e in entries if e.usable and str(e.path) not in excluded] if excluded else _usable_entries(entries)
    if not usable:  # nothing to rank: the stemmer, the date rules and the index are not loaded
        return RecallPlan(tokens=(), scored=(), relevant=(), candidates=(), recent_tools=tuple(recent_tools))
    # Imported here, not at the top: a project without memories (every headless turn's first
    # request waits for recall) does not pay their ~10 ms of imports and compiled patterns.
    from app.context.memory.ranking import rank, relevant
    from app.context.memory.terms import query_terms

    terms = query_terms(query, now)
    # The index holds every usable memory (so it stays the same from turn to turn); the filter of
    # memories about a just-used tool is applied to the ranked few, not to all 50,000.
    ranked = rank(terms, usable)
    if recent_tools:
        kept = {id(e) for e in filter_active_tool_memories([r.entry for r in ranked], recent_tools)}
        ranked = [r for r in ranked if id(r.entry) in kept]
    passed = relevant(ranked)
    # Semantic recall (optional, app/context/memory/semantic.py): None while its model loads.
    similar = semantic.similar(query, usable, block=block_semantic) if semantic is not None else None
    keyword = {id(r.entry): r for r in ranked}
    if similar is not None:
        from app.context.memory.fusion import fuse_scored

        fused = fuse_scored(ranked, passed, similar, semantic.cutoff)  # type: ignore[union-attr]
        if recent_tools:
            kept = {id(e) for e in filter_active_tool_memories([e for e, _ in fused], recent_tools)}
            fused = [(e, f) for e, f in fused if id(e) in kept]
        cosine = {id(e): c for e, c in similar}
        chosen = [e for e, _ in fused]
        scores = tuple(_scores(keyword.get(id(e)), cosine.get(id(e)), f) for e, f in fused)
        rankers: tuple[str, ...] = ("bm25f", "semantic")
    else:
        chosen = [r.entry for r in passed]
        scores = tuple(_scores(r, None, None) for r in passed)
        rankers = ("bm25f",)
    return RecallPlan(
        tokens=tuple(terms),
        scored=tuple(r.entry for r in ranked),
        relevant=tuple(chosen),
        candidates=tuple(usable),
        recent_tools=tuple(recent_tools),
        how="fused" if similar is not None else "heuristic",
        rankers=rankers,
        scores=scores,
    )


def _scores(keyword: object, cosine: float | None, fused: float | None) -> dict[str, float]:
    found: dict[str, float] = {}
    if keyword is not None:
        found["bm25f"] = round(keyword.score, 4)  # type: ignore[attr-defined]
        found["coverage"] = round(keyword.coverage, 4)  # type: ignore[attr-defined]
    if cosine is not None:
        found["semantic"] = round(cosine, 4)
    if fused is not None:
        found["fused"] = round(fused, 4)
    return found


def heuristic_selection(plan: RecallPlan, limit: int) -> list[MemoryEntry]:
    """The best relevant memories without secrets, at most ``limit``."""
    chosen: list[MemoryEntry] = []
    for entry in plan.relevant:
        if len(chosen) >= limit:
            break
        if not holds_secret(entry):
            chosen.append(entry)
    return chosen


def holds_secret(entry: MemoryEntry) -> bool:
    return contains_secret(f"{entry.path}\n{entry.title}\n{entry.description}\n{entry.body}")


async def select_memories(
    query: str,
    entries: Sequence[MemoryEntry],
    *,
    provider: Provider | None = None,
    limit: int = MAX_RELEVANT_DOCS,
    recent_tools: Sequence[str] = (),
    excluded_paths: Iterable[str] = (),
    now: float | None = None,
    timeout: float = RECALL_SELECTOR_TIMEOUT_SECONDS,
    on_fast: Callable[[list[MemoryEntry]], None] | None = None,
) -> RecallResult:
    """Choose up to ``limit`` (at most five) memories for ``query``.

    ``on_fast`` receives the heuristic's top two before the model is asked, for
    a caller that can use something early. Cancelling the task cancels the
    model call too.
    """
    now = time.time() if now is None else now
    limit = min(limit, MAX_RELEVANT_DOCS)
    if not query.strip() or not entries or limit <= 0:
        return RecallResult(RecallStrategy.NONE)
    # Scoring thousands of memories takes a moment; keep it off the event loop.
    plan = await asyncio.to_thread(
        plan_recall, query, entries, recent_tools=recent_tools, excluded_paths=excluded_paths
    )
    if not plan.candidates:
        return RecallResult(RecallStrategy.NONE)
    if provider is None:
        return heuristic_result(plan, limit, now)
    if on_fast is not None:
        on_fast(heuristic_selection(plan, MAX_FAST_RECALL_DOCS))
    return await model_result(provider, query, plan, limit=limit, recent_tools=recent_tools, timeout=timeout, now=now)


async def model_result(
    provider: Provider,
    query: str,
    plan: RecallPlan,
    *,
    limit: int = MAX_RELEVANT_DOCS,
    recent_tools: Sequence[str] = (),
    timeout: float = RECALL_SELECTOR_TIMEOUT_SECONDS,
    now: float,
) -> RecallResult:
    """The model's pick among the plan's candidates; the heuristic's when the model fails."""
    request = build_selector_request(query, plan.ranked, recent_tools, keep=lambda e: not _header_holds_secret(e))
    try:
        chosen = await _ask_model(provider, request, limit, timeout)
    except (LLMError, RecallSelectorError) as error:
        return heuristic_result(plan, limit, now, fallback_reason=str(error))
    except Exception as error:  # a broken provider must not break the turn; recall is optional
        log.warning("memory recall selector failed: %s", error, exc_info=True)
        return heuristic_result(plan, limit, now, fallback_reason=f"{type(error).__name__}: {error}")
    chosen = [entry for entry in chosen if not holds_secret(entry)]
    return RecallResult(RecallStrategy.MODEL, tuple(chosen), recall_reminder(chosen, now, how=RecallStrategy.MODEL))


def plan_from_store(
    store: MemoryStore, query: str, *, recent_tools: Sequence[str] = (), excluded_paths: Iterable[str] = (),
    semantic: SemanticRecall | None = None, asked_at: int | None = None, block_semantic: bool = False,
) -> RecallPlan:
    """List the project and user memories and rank them for ``query`` (blocking; run it in a thread).
    ``asked_at`` (time.monotonic_ns): when the question was asked; a listing begun since serves it."""
    candidates = list_recall_candidates(store, since=asked_at)
    return plan_recall(
        query, candidates, recent_tools=recent_tools, excluded_paths=excluded_paths, semantic=semantic, block_semantic=block_semantic
    )


async def recall_for_query(
    store: MemoryStore,
    query: str,
    *,
    provider: Provider | None = None,
    recent_tools: Sequence[str] = (),
    excluded_paths: Iterable[str] = (),
    limit: int = MAX_RELEVANT_DOCS,
    timeout: float = RECALL_SELECTOR_TIMEOUT_SECONDS,
    clock: Callable[[], float] = time.time,
) -> RecallResult:
    """List the project and user memories (in a thread) and select among them."""
    if not query.strip() or limit <= 0:
        return RecallResult(RecallStrategy.NONE)
    entries = await asyncio.to_thread(list_recall_candidates, store)
    return await select_memories(
        query,
        entries,
        provider=provider,
        limit=limit,
        recent_tools=recent_tools,
        excluded_paths=excluded_paths,
        now=clock(),
        timeout=timeout,
    )


async def _ask_model(provider: Provider, request: SelectorRequest, limit: int, timeout: float) -> list[MemoryEntry]:
    if not request.candidates:
        return []
    answer = await side_query(
        provider,
        system=request.system,
        prompt=request.prompt,
        schema=request.schema,
        timeout=timeout,
        temperature=request.temperature,
    )
    return parse_selection(answer, request, limit)


def heuristic_result(plan: RecallPlan, limit: int, now: float, fallback_reason: str | None = None) -> RecallResult:
    chosen = heuristic_selection(plan, limit)
    strategy = RecallStrategy.HEURISTIC if chosen or fallback_reason else RecallStrategy.NONE
    return RecallResult(strategy, tuple(chosen), recall_reminder(chosen, now, how=RecallStrategy.HEURISTIC), fallback_reason)


def _header_holds_secret(entry: MemoryEntry) -> bool:
    return contains_secret(f"{entry.path}\n{entry.description}")
