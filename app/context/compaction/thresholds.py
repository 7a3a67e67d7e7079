"""The warn / auto / hard thresholds of a context window.

Unset, ``compaction.pct`` keeps the seed's formula: auto = max(70 % of the window,
window − 33 K), so a large window compacts near its end. Set explicitly (in any settings
layer, or as Qwen Code's ``context.autoCompactThreshold``), it means what it says: auto
at that fraction of the window, warn 10 points before it, and hard where the default
puts it (near the end of the window, never below auto). With the old formula a
``pct`` of 0.5 on a 1 M window still compacted at 96.7 %.
"""

from __future__ import annotations

import math
from dataclasses import field
from app.dataclass import dataclass

SUMMARY_RESERVE = 20_000
AUTOCOMPACT_BUFFER = 13_000
WARN_BUFFER = 20_000
HARD_BUFFER = 3_000
DEFAULT_PCT = 0.7
WARN_PCT_OFFSET = 0.1
DEFAULT_SOURCE = "the default formula: auto at max(70% of the window, window - 33,000)"


@dataclass(frozen=True)
class Thresholds:
    """The token counts where a window's warn, auto and hard bands start."""

    window: float
    effective_window: float
    warn: float
    auto: float
    hard: float
    # Where these came from, in words for /context and the gauge.
    source: str = field(default=DEFAULT_SOURCE, compare=False)

    def band(self, tokens: float) -> str:
        """Which band a token count falls in: ok, warn, auto or hard."""
        if tokens >= self.hard:
            return "hard"
        if tokens >= self.auto:
            return "auto"
        if tokens >= self.warn:
            return "warn"
        return "ok"


def compute_thresholds(window: float, pct: float | None = None, *, origin: str = "") -> Thresholds:
    """No rounding: values may be fractional. Guarantees warn <= auto <= hard <= window.

    ``pct`` None (or not a number) is the default formula; ``origin`` names where an explicit one was set.
    """
    explicit = pct is not None and isinstance(pct, (int, float)) and math.isfinite(pct)
    p = min(1.0, max(0.0, float(pct))) if explicit else DEFAULT_PCT  # type: ignore[arg-type]
    effective = max(0.0, window - SUMMARY_RESERVE)
    if explicit:
        auto = p * window
        warn = max(0.0, (p - WARN_PCT_OFFSET) * window)
        source = f"compaction.pct {p:g}" + (f" from {origin}" if origin else "")
    else:
        auto = max(p * window, effective - AUTOCOMPACT_BUFFER)
        warn = max(0.0, max((p - WARN_PCT_OFFSET) * window, auto - WARN_BUFFER))
        source = DEFAULT_SOURCE
    hard = min(window, max(effective - HARD_BUFFER, auto + HARD_BUFFER))
    return Thresholds(window=window, effective_window=effective, warn=min(warn, auto), auto=min(auto, window), hard=hard, source=source)
