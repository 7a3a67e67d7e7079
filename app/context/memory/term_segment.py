"""A scope's search terms as its cache file keeps them: per memory and per term, in flat arrays.

A new process with 50,000 memories used to rebuild 150,000 term dicts from the cache file and
then post every memory into the BM25F index (``Bm25fIndex._post``) before its first recall: 1.6 s
of posting alone, plus the garbage collector walking the new objects (bench/memory_scale.py).
The segment instead keeps what the index needs in the form it needs it, like a search engine's
on-disk segment:

- per term, an inverted list: the rows (memories) holding it and their saturated, length
  normalised frequency, computed with the scope's average field lengths (``basis``); the index
  turns the lists of a question's terms into posting dicts when the question asks for them
  (``postings``), so the first recall costs the postings of its own terms;
- per row, its terms with their frequency in each field and their posting, and the fields'
  lengths: a memory's ``DocTerms`` are rebuilt from them only when needed (the memory changed
  or went away, the average lengths drifted), and the next cache file copies them as they are.

Arrays are ``array`` buffers kept as raw bytes after the cache file's JSON part (see
scan_cache.py): reading them is a copy, not 600,000 Python numbers (as base64 inside the JSON
they cost ~70 ms more to decode at 50,000 memories). Nothing here is trusted blindly: a segment that does
not fit its rows (lengths, offsets out of range) is refused and the memories are tokenised again.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import repeat
from operator import itemgetter
from typing import Any

from app.context.memory.entry import DocTerms

# What array("I") holds here must be 4 bytes (it is on every platform CPython supports).
_U32 = "I" if array("I").itemsize == 4 else "L"
_F64 = "d"


class CachedTerms(tuple):  # type: ignore[type-arg]
    """An entry's terms slot (MemoryEntry.terms) when they are in a segment: the segment and the row.
    A tuple, so the loader makes 50,000 of them in C (``for_rows``), not through an __init__."""

    __slots__ = ()

    def __new__(cls, segment: TermSegment, row: int) -> CachedTerms:
        return tuple.__new__(cls, (segment, row))

    segment = property(itemgetter(0))
    row = property(itemgetter(1))

    @classmethod
    def for_rows(cls, segment: TermSegment, count: int) -> list[CachedTerms]:
        return list(map(partial(tuple.__new__, cls), zip(repeat(segment), range(count))))

    def doc_terms(self) -> DocTerms:
        return self.segment.doc_terms(self.row)


class TermSegment:
    """The decoded arrays of one cache file's terms (see the module docstring). ``keys`` and
    ``entries`` are filled by the loader: the entry of each row and its id, the key the BM25F
    index files it under (the segment holds the entries, so no other object can take their ids)."""

    def __init__(
        self,
        vocab: list[str],
        basis: tuple[float, float, float],
        has: bytes,
        row_off: array,
        row_terms: array,
        row_tf: array,
        row_sat: array,
        lengths: array,
        inv_off: array,
        inv_rows: array,
        inv_sat: array,
    ) -> None:
        self.vocab = vocab
        self.basis = basis
        self.has = has
        self.row_off, self.row_terms, self.row_tf, self.row_sat, self.lengths = row_off, row_terms, row_tf, row_sat, lengths
        self.inv_off, self.inv_rows, self.inv_sat = inv_off, inv_rows, inv_sat
        self.entries: list[Any] = []
        self.keys: list[int] = []
        self._term_ids: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self.has)

    def term_id(self, term: str) -> int | None:
        ids = self._term_ids
        if ids is None:
            self._term_ids = ids = {term: at for at, term in enumerate(self.vocab)}
        return ids.get(term)

    def postings(self, term: str) -> dict[int, float]:
        """Entry key -> saturated frequency for ``term`` over every row (the caller drops the rows
        its index does not hold). Built in C (zip, map): ~3 ms for a term in 35,000 memories."""
        at = self.term_id(term)
        if at is None:
            return {}
        start, end = self.inv_off[at], self.inv_off[at + 1]
        return dict(zip(map(self.keys.__getitem__, self.inv_rows[start:end]), self.inv_sat[start:end]))

    def row_lengths(self, row: int) -> tuple[int, int, int]:
        at = 3 * row
        return self.lengths[at], self.lengths[at + 1], self.lengths[at + 2]

    def totals(self) -> list[int]:
        """The field lengths summed over the rows that have terms."""
        lengths = self.lengths
        return [sum(lengths[field::3]) for field in range(3)]

    def doc_terms(self, row: int) -> DocTerms:
        start, end = self.row_off[row], self.row_off[row + 1]
        vocab = self.vocab
        fields: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
        tf = self.row_tf
        for at in range(start, end):
            term = vocab[self.row_terms[at]]
            for field in range(3):
                count = tf[3 * at + field]
                if count:
                    fields[field][term] = count
        return DocTerms(fields, self.row_lengths(row))


SaturatedFn = Callable[[DocTerms, Sequence[float]], Mapping[str, float]]


def encode_segment(
    rows: Sequence[DocTerms | CachedTerms | None], basis: tuple[float, float, float], saturated: SaturatedFn
) -> tuple[dict[str, Any], dict[str, array]]:
    """A segment for ``rows`` (None: a memory without terms yet): its JSON part (the terms, the
    basis) and its arrays. ``saturated``
    is the index's own formula (ranking.saturated), so a posting read back is the one the index
    would have computed with ``basis``; a row still in an older segment saved with the same basis
    is copied from it as it is (no dicts rebuilt, nothing recomputed). Runs in the cache
    writer's thread."""
    ids: dict[str, int] = {}
    has = bytearray(len(rows))
    row_off = array(_U32, [0])
    row_terms = array(_U32)
    row_tf = array(_U32)
    row_sat = array(_F64)
    lengths = array(_U32)
    remaps: dict[int, list[int]] = {}  # id(older segment) -> its term id -> ours (-1: not yet)
    for row, terms in enumerate(rows):
        if terms is None:
            row_off.append(len(row_terms))
            lengths.extend((0, 0, 0))
            continue
        has[row] = 1
        if type(terms) is CachedTerms and terms.segment.basis == basis:
            old, at = terms.segment, terms.row
            remap = remaps.get(id(old))
            if remap is None:
                remap = remaps[id(old)] = [-1] * len(old.vocab)
            start, end = old.row_off[at], old.row_off[at + 1]
            for term_id in old.row_terms[start:end]:
                mine = remap[term_id]
                if mine < 0:
                    term = old.vocab[term_id]
                    mine = ids.get(term, -1)
                    if mine < 0:
                        mine = ids[term] = len(ids)
                    remap[term_id] = mine
                row_terms.append(mine)
            row_tf.extend(old.row_tf[3 * start : 3 * end])
            row_sat.extend(old.row_sat[start:end])
            lengths.extend(old.lengths[3 * at : 3 * at + 3])
            row_off.append(len(row_terms))
            continue
        if type(terms) is CachedTerms:
            terms = terms.doc_terms()
        title, description, body = terms.fields  # type: ignore[union-attr]
        for term, sat in saturated(terms, basis).items():  # type: ignore[arg-type]
            mine = ids.get(term, -1)
            if mine < 0:
                mine = ids[term] = len(ids)
            row_terms.append(mine)
            row_tf.extend((title.get(term, 0), description.get(term, 0), body.get(term, 0)))
            row_sat.append(sat)
        row_off.append(len(row_terms))
        lengths.extend(terms.lengths)  # type: ignore[union-attr]
    inv_off, inv_rows, inv_sat = _inverted(len(ids), len(rows), row_off, row_terms, row_sat)
    meta = {"vocab": list(ids), "basis": list(basis)}
    arrays = {
        "has": array("B", has), "row_off": row_off, "row_terms": row_terms, "row_tf": row_tf, "row_sat": row_sat,
        "lengths": lengths, "inv_off": inv_off, "inv_rows": inv_rows, "inv_sat": inv_sat,
    }
    return meta, arrays


def _inverted(terms: int, count: int, row_off: array, row_terms: array, row_sat: array) -> tuple[array, array, array]:
    """The per-row arrays transposed: for each term, the rows holding it (in row order) and their postings."""
    found: list[list[int]] = [[] for _ in range(terms)]
    sats: list[list[float]] = [[] for _ in range(terms)]
    at = 0
    for row in range(count):
        end = row_off[row + 1]
        while at < end:
            term = row_terms[at]
            found[term].append(row)
            sats[term].append(row_sat[at])
            at += 1
    inv_off = array(_U32, [0])
    inv_rows = array(_U32)
    inv_sat = array(_F64)
    for rows, values in zip(found, sats):
        inv_rows.extend(rows)
        inv_sat.extend(values)
        inv_off.append(len(inv_rows))
    return inv_off, inv_rows, inv_sat


# The arrays of a segment and their item types (the cache file records each array's type too).
ARRAY_TYPES = {
    "has": "B", "row_off": _U32, "row_terms": _U32, "row_tf": _U32, "row_sat": _F64, "lengths": _U32,
    "inv_off": _U32, "inv_rows": _U32, "inv_sat": _F64,
}


def decode_segment(meta: Mapping[str, Any], arrays: Mapping[str, array], count: int) -> TermSegment | None:
    """The segment saved for ``count`` rows, or None when it does not fit them (a damaged or
    foreign file: the memories are then tokenised again, never ranked from wrong arrays). The
    checks are the ones that keep every index in range (~10 ms at 50,000 memories)."""
    try:
        vocab = meta["vocab"]
        basis = tuple(float(x) for x in meta["basis"])
        has, row_off, row_terms, row_tf, row_sat, lengths, inv_off, inv_rows, inv_sat = (arrays[name] for name in ARRAY_TYPES)
    except (KeyError, TypeError, ValueError):
        return None
    if any(arrays[name].typecode != code for name, code in ARRAY_TYPES.items()):
        return None
    pairs = len(row_terms)
    if not (
        isinstance(vocab, list) and all(type(term) is str for term in vocab) and len(basis) == 3 and all(b > 0 for b in basis)
        and len(has) == count and len(row_off) == count + 1 and len(lengths) == 3 * count
        and len(row_tf) == 3 * pairs and len(row_sat) == pairs and len(inv_rows) == pairs and len(inv_sat) == pairs
        and len(inv_off) == len(vocab) + 1 and row_off[0] == 0 and row_off[-1] == pairs and inv_off[0] == 0 and inv_off[-1] == pairs
        and all(a <= b for a, b in zip(row_off, row_off[1:])) and all(a <= b for a, b in zip(inv_off, inv_off[1:]))
        and (not pairs or (max(row_terms) < len(vocab) and max(inv_rows) < count))
    ):
        return None
    return TermSegment(vocab, basis, bytes(has), row_off, row_terms, row_tf, row_sat, lengths, inv_off, inv_rows, inv_sat)
