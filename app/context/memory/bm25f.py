"""The BM25F formula's constants and one memory's postings, shared by the index (ranking.py) and
the cache file's term segment (scan_cache.py, term_segment.py), which must compute the very same
values: a posting read back from the file is then the one the index would have computed.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.context.memory.entry import DocTerms

# Field weights and length normalisation (title, description, body).
WEIGHTS = (3.0, 2.0, 1.0)
B = (0.3, 0.5, 0.75)
K1 = 1.2
# Postings are recomputed when an average field length drifts this far from the one they used.
MAX_DRIFT = 0.01


def saturated(terms: DocTerms, basis: Sequence[float]) -> dict[str, float]:
    """Each term's saturated, length-normalised frequency tf / (K1 + tf) in one memory, with the
    average field lengths ``basis``: its posting in the index (and in the cache file's segment)."""
    title, description, body = terms.fields
    norms = [1 - B[f] + B[f] * terms.lengths[f] / basis[f] for f in range(3)]
    result: dict[str, float] = {}
    for term in set(title) | set(description) | set(body):
        tf = WEIGHTS[0] * title.get(term, 0) / norms[0] + WEIGHTS[1] * description.get(term, 0) / norms[1] + WEIGHTS[2] * body.get(term, 0) / norms[2]
        result[term] = tf / (K1 + tf)
    return result
