"""A small deterministic embedder for the semantic-recall tests: words to concepts, concepts to axes.

It is a real embedder (the same interface the model has, vectors computed from the text), small
enough to reason about: words of one concept ("database", "postgres", "db") share an axis, so a
paraphrase with no word in common with a memory still lands close to it. Any other word gets an
axis of its own from a stable hash, weighted lower. ``embedded`` counts every text it was given,
so a test can tell a cached vector from a recomputed one.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

CONCEPTS = (
    ("database", "databases", "postgres", "postgresql", "db", "sql"),
    ("mock", "mocks", "mocked", "stub", "stubs", "fake", "fakes", "double"),
    ("release", "releases", "ship", "shipping", "deploy", "deploys", "launch"),
    ("freeze", "frozen", "halt", "pause", "stop"),
    ("test", "tests", "testing", "checks", "verify"),
    ("answer", "answers", "reply", "replies", "response", "responses"),
    ("short", "terse", "brief", "concise"),
    ("dashboard", "dashboards", "board", "graphs", "grafana"),
)
DIM = 64
_AXIS = {word: axis for axis, words in enumerate(CONCEPTS) for word in words}


class ConceptEmbedder:
    name = "concepts-test"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        rows = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                if word in _AXIS:
                    rows[row, _AXIS[word]] += 1.0
                else:
                    rows[row, len(CONCEPTS) + zlib.crc32(word.encode()) % (DIM - len(CONCEPTS))] += 0.3
            norm = float(np.linalg.norm(rows[row]))
            if norm:
                rows[row] /= norm
        return rows
