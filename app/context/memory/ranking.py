"""Ranking memories for a question: BM25F over title, description and body.

BM25F (Robertson and Zaragoza's field-weighted BM25) counts a term more in a
title than in a description, and more there than in the body, with each
field's length normalised on its own; rare terms weigh more than common ones
(IDF), so "what", "did", "the" (stop words, dropped anyway) and words every
memory uses decide nothing. Scores are floats: ties are rare, and those left
are broken by scope order and relative path, never by file clocks.

A memory is relevant when it matches at least MIN_COVERAGE of the question's
weight (the IDF of its terms, each counted fully once found as well as one
mention in an average body, see _coverage) and at
least RELATIVE_CUTOFF of the best memory's score: an unrelated question
recalls nothing, and one strong match does not drag weak ones along.

The inverted index is kept between turns and updated for the entries that
changed (the listing hands back the same entry object for an unchanged file),
so a question costs the postings of its own terms, not a pass over every
memory. A listing that carries its delta from the version the index holds (scan.ListingDelta)
is applied as such; any other listing is compared entry by entry. See bench/memory_scale.py
for the figures at 50,000 memories.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections import Counter
from collections.abc import Sequence
from app.dataclass import dataclass
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING

from app.context.memory.bm25f import B, K1, MAX_DRIFT, WEIGHTS, saturated  # noqa: F401  (this module's API too)
from app.context.memory.bulk import paused_gc
from app.context.memory.entry import DocTerms, MemoryEntry
from app.context.memory.term_segment import CachedTerms, TermSegment
from app.context.memory.terms import document_terms
from app.context.memory.textunits import utf16_sort_key

if TYPE_CHECKING:
    from app.context.memory.scan import ListingDelta

# Past this many characters a body adds no terms (a long body is still recalled by its start).
MAX_INDEXED_BODY_CHARS = 4000
# Tuned on the recall set in bench/recall_eval.py (its own generated memories, no public benchmark):
# 0.35 of the question's weight keeps that set's Hit@5 (0.956) and its unrelated questions empty (97%).
MIN_COVERAGE = 0.35
RELATIVE_CUTOFF = 0.4
# A question's word that no memory uses weighs this share of its IDF in the coverage.
ABSENT_WEIGHT = 0.5
# A sync that tokenised this many memories saves them to the scopes' cache files.
SAVE_TERMS_AFTER = 50


def doc_terms(entry: MemoryEntry) -> DocTerms:
    """The entry's terms: kept on the entry once computed (a cache slot, see MemoryEntry.terms),
    or rebuilt from the scope's cache file (term_segment.CachedTerms) without tokenising."""
    known = entry.terms
    if isinstance(known, DocTerms):
        return known
    if isinstance(known, CachedTerms):
        return known.doc_terms()
    name = entry.rel_path.rsplit("/", 1)[-1].removesuffix(".md").replace("-", " ").replace("_", " ")
    texts = (f"{entry.title}\n{name}", entry.description, entry.body[:MAX_INDEXED_BODY_CHARS])
    counters = tuple(dict(Counter(document_terms(text))) for text in texts)
    terms = DocTerms(counters, tuple(sum(c.values()) for c in counters))  # type: ignore[arg-type]
    object.__setattr__(entry, "terms", terms)  # the entry is immutable in every field that is compared
    return terms


@dataclass(frozen=True)
class Ranked:
    """One memory's BM25F score for a question, with what decides whether it is relevant and how ties break."""

    entry: MemoryEntry
    score: float
    coverage: float  # the share of the question's weight this memory carries
    order: int  # the scope's place (project, user, team): the first tie-break


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
_TERMS, _ROW, _SEGMENT = attrgetter("terms"), attrgetter("row"), attrgetter("segment")


def _split_cached(
    keys: list[int], entries: list[MemoryEntry]
) -> tuple[list[tuple[int, MemoryEntry]], dict[int, list[tuple[int, MemoryEntry, CachedTerms]]]]:
    """The entries to post one by one, and those whose terms are rows of a cache-file segment,
    grouped by segment. In C where it can be (map, zip, compare): a new process hands the index
    50,000 entries from one segment, and a Python loop over them cost ~0.2 s under load."""
    terms = list(map(_TERMS, entries))
    at = [i for i, t in enumerate(terms) if type(t) is CachedTerms]
    if not at:
        return list(zip(keys, entries)), {}
    picked = list(map(terms.__getitem__, at))
    segments = set(map(id, map(_SEGMENT, picked)))
    if len(segments) == 1:
        segment = picked[0].segment
        picked_keys = list(map(keys.__getitem__, at))
        if list(map(segment.keys.__getitem__, map(_ROW, picked))) == picked_keys:  # each entry is its row's
            chosen = set(at)
            plain = [(k, e) for i, (k, e) in enumerate(zip(keys, entries)) if i not in chosen] if len(at) < len(keys) else []
            return plain, {id(segment): list(zip(picked_keys, map(entries.__getitem__, at), picked))}
    plain_rows: list[tuple[int, MemoryEntry]] = []
    groups: dict[int, list[tuple[int, MemoryEntry, CachedTerms]]] = {}
    for key, entry, known in zip(keys, entries, terms):
        if type(known) is CachedTerms and known.segment.keys[known.row] == key:
            groups.setdefault(id(known.segment), []).append((key, entry, known))
        else:
            plain_rows.append((key, entry))
    return plain_rows, groups


class _Adopted:
    """A cache file's term segment taken into an index as it is: ``dead`` holds the keys of its rows
    the index does not hold (changed or gone since it was saved), ``done`` the terms whose
    postings were already moved into the index's dicts."""

    __slots__ = ("segment", "dead", "done")

    def __init__(self, segment: TermSegment, dead: set[int]) -> None:
        self.segment = segment
        self.dead = dead
        self.done: set[str] = set()


class Bm25fIndex:
    """An inverted index over a set of memories, kept in step with the listing by ``sync``."""

    def __init__(self) -> None:
        # Keyed by the entry's id: entries are immutable and held here, so an id stays theirs, and an
        # unchanged file's entry is the same object from one listing to the next.
        self._docs: dict[int, tuple[MemoryEntry, DocTerms | CachedTerms]] = {}
        # term -> {doc key: its saturated, length-normalised frequency tf / (K1 + tf)}, computed with
        # the average field lengths in _basis; a question then costs one multiply-add per posting.
        self._postings: dict[str, dict[int, float]] = {}
        # Cache-file segments whose postings join _postings term by term, when a question asks for
        # the term (see term_segment.py): a new process does not post 50,000 memories first.
        self._adopted: list[_Adopted] = []
        self._total = [0, 0, 0]
        self._basis = (1.0, 1.0, 1.0)
        self._version: tuple[object, ...] = ()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._docs)

    def sync(self, entries: Sequence[MemoryEntry]) -> None:
        """Make the index hold exactly ``entries`` (same object = unchanged, not re-indexed). A
        listing with the version this index was last synced to is known to hold the same entries."""
        version = getattr(entries, "version", ())
        if version and version == self._version:
            return
        delta = getattr(entries, "delta", None)
        if version and delta is not None and delta.before == self._version and self._apply(delta, len(entries)):
            self._version = version
            return
        wanted: dict[int, MemoryEntry] = dict(zip(map(id, entries), entries))
        if not (len(wanted) == len(self._docs) and all(k in self._docs for k in wanted)):
            for key in [k for k in self._docs if k not in wanted]:
                self._remove(key)
            was_empty = not self._docs
            tokenised = 0
            added: list[int] = []
            new_keys = list(wanted) if was_empty else [k for k in wanted if k not in self._docs]
            with paused_gc():  # up to 50,000 new tuples at once (bulk.py)
                plain, cached = _split_cached(new_keys, list(map(wanted.__getitem__, new_keys)))
                adopt_later = self._adopt(cached, was_empty)
            for key, entry in plain:
                tokenised += entry.terms is None
                self._add(key, entry)
                added.append(key)
            for rows in adopt_later:
                for key, entry, _ in rows:
                    self._add(key, entry)
                    added.append(key)
            if not self._rebase_if_drifted():
                for key in added:
                    self._post(key, self._docs[key][1])  # type: ignore[arg-type]
            if tokenised >= SAVE_TERMS_AFTER:
                from app.context.memory.scan import save_term_statistics

                save_term_statistics()
        self._version = version

    def _adopt(self, groups: dict[int, list[tuple[int, MemoryEntry, CachedTerms]]], was_empty: bool) -> list[list[tuple[int, MemoryEntry, CachedTerms]]]:
        """Take the groups of entries whose terms are in a cache-file segment into the index as
        segments (nothing posted now); returns the groups that must be posted one by one instead
        (a segment whose postings used other average lengths than this index: their terms are
        still read from the segment, not tokenised). An empty index takes the basis of the
        largest segment."""
        if not groups:
            return []
        ordered = sorted(groups.values(), key=len, reverse=True)
        if was_empty and not self._adopted:
            self._basis = ordered[0][0][2].segment.basis
        adopted = {id(a.segment) for a in self._adopted}
        rest: list[list[tuple[int, MemoryEntry, CachedTerms]]] = []
        for rows in ordered:
            segment = rows[0][2].segment
            if id(segment) in adopted or segment.basis != self._basis:
                rest.append(rows)
                continue
            alive = set(map(_ROW, map(_THIRD, rows)))
            dead_rows = set(range(len(segment))) - alive
            total = segment.totals()
            for row in dead_rows:
                lengths = segment.row_lengths(row)
                for field in range(3):
                    total[field] -= lengths[field]
            for field in range(3):
                self._total[field] += total[field]
            self._docs.update(zip(map(_FIRST, rows), zip(map(_SECOND, rows), map(_THIRD, rows))))
            self._adopted.append(_Adopted(segment, {segment.keys[row] for row in dead_rows}))
        return rest

    def _posting(self, term: str) -> dict[int, float] | None:
        """The term's postings, with those of adopted segments moved in on first use."""
        posting = self._postings.get(term)
        for adopted in self._adopted:
            if term in adopted.done:
                continue
            adopted.done.add(term)
            extra = adopted.segment.postings(term)
            if not extra:
                continue
            for key in [k for k in adopted.dead if k in extra] if len(adopted.dead) < len(extra) else [k for k in extra if k in adopted.dead]:
                del extra[key]
            if posting is None:
                self._postings[term] = posting = extra
            else:
                posting.update(extra)
        return posting

    def _apply(self, delta: ListingDelta, count: int) -> bool:
        """Apply a listing's change (entries removed, entries added) to the index synced to the
        listing before it: the cost is the changed memories' terms, not a pass over every entry.
        False (nothing changed) when the delta does not fit what the index holds."""
        if any(id(e) not in self._docs or self._docs[id(e)][0] is not e for e in delta.removed):
            return False
        if any(id(e) in self._docs for e in delta.added):
            return False
        if len(self._docs) - len(delta.removed) + len(delta.added) != count:
            return False
        for entry in delta.removed:
            self._remove(id(entry))
        for entry in delta.added:
            self._add(id(entry), entry)
        if not self._rebase_if_drifted():
            for entry in delta.added:
                self._post(id(entry), self._docs[id(entry)][1])  # type: ignore[arg-type]
        return True

    def _add(self, key: int, entry: MemoryEntry) -> None:
        terms = doc_terms(entry)
        self._docs[key] = (entry, terms)
        for field in range(3):
            self._total[field] += terms.lengths[field]

    def _post(self, key: int, terms: DocTerms) -> None:
        postings = self._postings
        for term, value in saturated(terms, self._basis).items():
            posting = postings.get(term)
            if posting is None:
                postings[term] = posting = {}
            posting[key] = value

    def _averages(self) -> tuple[float, float, float]:
        count = max(len(self._docs), 1)
        return tuple(max(total / count, 1.0) for total in self._total)  # type: ignore[return-value]

    def _rebase_if_drifted(self) -> bool:
        """Recompute every posting when an average field length moved more than MAX_DRIFT from the
        one they were computed with (adding one memory to 50,000 moves it by a fraction of that).
        Adopted segments are given up then: their postings used the old averages."""
        averages = self._averages()
        if all(abs(a - b) <= MAX_DRIFT * b for a, b in zip(averages, self._basis)):
            return False
        self._basis = averages
        self._postings = {}
        self._adopted = []
        for key, (entry, terms) in list(self._docs.items()):
            if isinstance(terms, CachedTerms):
                terms = terms.doc_terms()
                self._docs[key] = (entry, terms)
            self._post(key, terms)
        return True

    def _remove(self, key: int) -> None:
        _, terms = self._docs.pop(key)
        if isinstance(terms, CachedTerms):
            for adopted in self._adopted:
                if adopted.segment is terms.segment:
                    adopted.dead.add(key)  # its postings not yet moved in are dropped when they are
            terms = terms.doc_terms()
        for counter in terms.fields:
            for term in counter:
                posting = self._postings.get(term)
                if posting is not None:
                    posting.pop(key, None)
                    if not posting:
                        del self._postings[term]
        for field in range(3):
            self._total[field] -= terms.lengths[field]

    def scores(self, terms: Sequence[str]) -> tuple[dict[int, float], float]:
        """Each matching memory's BM25F score, and the question's weight (the sum of its terms' IDF)."""
        scores, weight, _ = self.weighted_scores(terms)
        return scores, weight

    def weighted_scores(self, terms: Sequence[str]) -> tuple[dict[int, float], float, list[tuple[float, dict[int, float]]]]:
        """``scores`` and, per term, its IDF and postings (what coverage is computed from)."""
        count = len(self._docs)
        if not count or not terms:
            return {}, 0.0, []
        scores: dict[int, float] = {}
        weight = 0.0
        per_term: list[tuple[float, dict[int, float]]] = []
        for term in terms:
            posting = self._posting(term) or {}
            # A term no memory has weighs like one memory has: with few memories the textbook IDF
            # of an absent term (up to 2.6x a present one's) would sink every multi-word question.
            df = max(len(posting), 1)
            idf = math.log(1 + (count - df + 0.5) / (df + 0.5))
            weight += idf
            per_term.append((idf, posting))
            if not scores:
                scores = {key: idf * value for key, value in posting.items()}
                continue
            get = scores.get
            for key, value in posting.items():
                scores[key] = get(key, 0.0) + idf * value
        return scores, weight, per_term


_indexes: dict[tuple[str, ...], Bm25fIndex] = {}
_indexes_lock = threading.Lock()
MAX_CACHED_INDEXES = 4
MAX_RANKED = 256


def shared_index(entries: Sequence[MemoryEntry]) -> Bm25fIndex:
    """The index kept for this set of scopes, synced to ``entries``."""
    # Listings come grouped by scope (project, then user...): the first and last say which set this is.
    key = (entries[0].scope.value, entries[-1].scope.value) if entries else ()
    with _indexes_lock:
        index = _indexes.pop(key, None) or Bm25fIndex()
        while len(_indexes) >= MAX_CACHED_INDEXES:
            _indexes.pop(next(iter(_indexes)))
        _indexes[key] = index
    return index


def rank(terms: Sequence[str], entries: Sequence[MemoryEntry], *, index: Bm25fIndex | None = None) -> list[Ranked]:
    """The entries that match any term, best first (score, then scope, then relative path)."""
    index = index if index is not None else shared_index(entries)
    with index._lock:
        index.sync(entries)
        scores, weight, per_term = index.weighted_scores(terms)
        docs = index._docs
    if not scores:
        return []
    # A common word can match half of 50,000 memories: only the best MAX_RANKED are ranked in full
    # (recall shows five, the selector's manifest two hundred).
    items = heapq.nlargest(MAX_RANKED, scores.items(), key=lambda item: item[1]) if len(scores) > MAX_RANKED else scores.items()
    # Coverage is measured against the terms the memories use: a word no memory has cannot tell
    # one memory from another, so it weighs only ABSENT_WEIGHT of its IDF (it still counts: an
    # unrelated question is mostly words the store never uses).
    present = sum(idf for idf, posting in per_term if posting)
    weight = present + ABSENT_WEIGHT * (weight - present)
    ranked = [
        Ranked(entry, score, _coverage(key, per_term, weight), _SCOPE_ORDER.get(entry.scope.value, 9))
        for key, score in items
        for entry in (docs[key][0],)
    ]
    # Ties: project before user before team, then by relative path; never by file clocks.
    ranked.sort(key=lambda r: (-r.score, r.order, utf16_sort_key(r.entry.rel_path)))
    return ranked


_SCOPE_ORDER = {"project": 0, "user": 1, "team": 2}
# One occurrence in a body of average length (tf 1, norm 1): tf / (K1 + tf). A term found at least
# that well counts fully towards a memory's coverage of the question.
FULL_MATCH = 1.0 / (K1 + 1.0)


def _coverage(key: int, per_term: Sequence[tuple[float, dict[int, float]]], weight: float) -> float:
    """The share of the question's weight (its terms' IDF) this memory matches, each term counted
    fully once it is found as well as one mention in an average body. Not score / weight: a term
    once in a long body saturates far below 1, so a one- or two-character CJK question (one term)
    fell under MIN_COVERAGE on the very memory a longer question recalled."""
    if not weight:
        return 0.0
    found = 0.0
    for idf, posting in per_term:
        value = posting.get(key)
        if value:
            found += idf * min(1.0, value / FULL_MATCH)
    return found / weight


def relevant(ranked: Sequence[Ranked]) -> list[Ranked]:
    """The memories that pass both thresholds (see the module docstring)."""
    if not ranked or ranked[0].score <= 0:
        return []
    best = ranked[0].score
    return [r for r in ranked if r.score > 0 and r.coverage >= MIN_COVERAGE and r.score >= RELATIVE_CUTOFF * best]
