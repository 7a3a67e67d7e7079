"""The warn / auto / hard thresholds of a context window (spec: compute_thresholds, seed-era formula)."""

from __future__ import annotations

import math
from dataclasses import dataclass

SUMMARY_RESERVE = 20_000
AUTOCOMPACT_BUFFER = 13_000
WARN_BUFFER = 20_000
HARD_BUFFER = 3_000
DEFAULT_PCT = 0.7
WARN_PCT_OFFSET = 0.1


@dataclass(frozen=True)
class Thresholds:
    window: float
    effective_window: float
    warn: float
    auto: float
    hard: float

    def band(self, tokens: float) -> str:
        """Which band a token count falls in: ok, warn, auto or hard."""
        if tokens >= self.hard:
            return "hard"
        if tokens >= self.auto:
            return "auto"
        if tokens >= self.warn:
            return "warn"
        return "ok"


def compute_thresholds(window: float, pct: float | None = None) -> Thresholds:
    """No rounding: values may be fractional. Guarantees warn <= auto <= hard <= window."""
    p = pct if pct is not None and math.isfinite(pct) else DEFAULT_PCT
    p = min(1.0, max(0.0, p))
    effective = max(0.0, window - SUMMARY_RESERVE)
    auto = max(p * window, effective - AUTOCOMPACT_BUFFER)
    warn = max(0.0, max((p - WARN_PCT_OFFSET) * window, auto - WARN_BUFFER))
    hard = min(window, max(effective - HARD_BUFFER, auto + HARD_BUFFER))
    return Thresholds(window=window, effective_window=effective, warn=warn, auto=auto, hard=hard)
