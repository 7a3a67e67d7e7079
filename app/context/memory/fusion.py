"""Keyword and semantic rankings fused by reciprocal rank (Cormack, Clarke and Büttcher, 2009).

Each memory scores the sum of weight / (K + rank) over the rankings it appears
in: BM25F's (app/context/memory/ranking.py, weight 1) and the embedding
similarity's (weight SEMANTIC_WEIGHT). Rank fusion needs no calibration between
a BM25F score and a cosine; the small K and the lower semantic weight keep
BM25F's first place first unless the embeddings strongly disagree (with the
textbook K = 60 and equal weights Hit@1 fell from 0.944 to 0.868 on our set).

Which memories may be recalled at all is decided before the fusion, by three
gates: BM25F's relevant() (coverage and relative score); a similarity floor
plus a margin below the best similarity (or, under the floor, a best similarity
that stands out from the tenth: see SemanticCutoff.distinct_gap, chosen on the
tuning split of bench/dialogue_set.py); and agreement, a memory in the first
three of both rankings with some similarity (a paraphrase that shares one word,
"what reply style suits Kwame?" for "Kwame prefers terse answers", is below
BM25F's coverage cut-off and below the floor, yet both rankings put it first).
A question no gate lets through recalls nothing; fusion only orders what
passed. The constants were chosen by a sweep on bench/recall_set.py
(`make eval-recall`), where unrelated questions have a best similarity of at
most 0.554 with this model (90th percentile 0.508): they are tuned to our own
set, not validated on another one.
"""

from __future__ import annotations

from collections.abc import Sequence
from app.dataclass import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only types here: the ranker loads with the first recall that has memories
    from app.context.memory.entry import MemoryEntry
    from app.context.memory.ranking import Ranked

# The usual constant of reciprocal rank fusion: a top rank counts, but not overwhelmingly.
K = 5
# The embedding ranking's vote against BM25F's (weighted reciprocal rank fusion).
SEMANTIC_WEIGHT = 0.25
# How many of the embedding ranking's best memories take part in the fusion.
MAX_SEMANTIC_RANKED = 50


@dataclass(frozen=True)
class SemanticCutoff:
    """Which similarities count as relevant: at least ``floor``, and within ``margin`` of the best."""

    floor: float = 0.58
    margin: float = 0.1
    # Both rankings agree: a memory in the first ``agree_top`` of each, at least ``agree_floor`` similar.
    agree_top: int = 3
    agree_floor: float = 0.2
    # Or the best stands out: at least ``distinct_floor`` similar and ``distinct_gap`` above the
    # ``distinct_rank``-th best. An unanswerable question's similarities are flat (the best 0.02
    # above the tenth, median, on bench/dialogue_set.py's tuning split), an answerable one's best is
    # not (0.12), while their best similarities overlap (0.45 against 0.54).
    distinct_floor: float = 0.4
    distinct_gap: float = 0.08
    distinct_rank: int = 10


def semantic_relevant(similar: Sequence[tuple[MemoryEntry, float]], cutoff: SemanticCutoff) -> list[MemoryEntry]:
    """The memories of an embedding ranking (best first) that pass the cut-off."""
    if not similar:
        return []
    best = similar[0][1]
    if best >= cutoff.floor:
        return [entry for entry, score in similar if score >= cutoff.floor and score >= best - cutoff.margin]
    rank = cutoff.distinct_rank
    if best >= cutoff.distinct_floor and len(similar) >= rank and best - similar[rank - 1][1] >= cutoff.distinct_gap:
        return [entry for entry, score in similar if score >= best - cutoff.margin]
    return []


def fuse(
    keyword: Sequence[Ranked],
    keyword_relevant: Sequence[Ranked],
    similar: Sequence[tuple[MemoryEntry, float]],
    cutoff: SemanticCutoff = SemanticCutoff(),
) -> list[MemoryEntry]:
    """The memories either ranking finds relevant, ordered by reciprocal rank fusion of both rankings.

    ``keyword`` is BM25F's ranking (best first) and ``keyword_relevant`` what passed its cut-off;
    ``similar`` is the embedding ranking, best first, as (entry, cosine similarity).
    """
    return [entry for entry, _ in fuse_scored(keyword, keyword_relevant, similar, cutoff)]


def fuse_scored(
    keyword: Sequence[Ranked],
    keyword_relevant: Sequence[Ranked],
    similar: Sequence[tuple[MemoryEntry, float]],
    cutoff: SemanticCutoff = SemanticCutoff(),
) -> list[tuple[MemoryEntry, float]]:
    """``fuse`` with each memory's fused score (what ``memory recall --json`` shows)."""
    allowed = {id(r.entry): r.entry for r in keyword_relevant}
    for entry in semantic_relevant(similar, cutoff):
        allowed.setdefault(id(entry), entry)
    close = {id(entry) for entry, score in similar[: cutoff.agree_top] if score >= cutoff.agree_floor}
    for ranked in keyword[: cutoff.agree_top]:
        if id(ranked.entry) in close:
            allowed.setdefault(id(ranked.entry), ranked.entry)
    if not allowed:
        return []
    fused: dict[int, float] = {}
    for position, ranked in enumerate(keyword, start=1):
        if id(ranked.entry) in allowed:
            fused[id(ranked.entry)] = fused.get(id(ranked.entry), 0.0) + 1.0 / (K + position)
    for position, (entry, _) in enumerate(similar[:MAX_SEMANTIC_RANKED], start=1):
        if id(entry) in allowed:
            fused[id(entry)] = fused.get(id(entry), 0.0) + SEMANTIC_WEIGHT / (K + position)
    # Equal fused scores keep BM25F's order, then the embedding ranking's (both already stable).
    order = {id(r.entry): i for i, r in enumerate(keyword)}
    semantic_order = {id(e): i for i, (e, _) in enumerate(similar)}
    chosen = sorted(
        allowed.values(),
        key=lambda e: (-fused.get(id(e), 0.0), order.get(id(e), len(order)), semantic_order.get(id(e), len(semantic_order))),
    )
    return [(entry, fused.get(id(entry), 0.0)) for entry in chosen]
