"""Full garbage collections wait while a reply streams.

Streaming a reply makes Textual build and drop a great many small objects (strips, segments, regions,
caches), and every so often CPython then runs a full collection over everything alive in the process:
in a 5,000-token stream (bench/tui.py) that was 6-10 full collections of 15-170 ms each on a quiet
machine and up to 0.8 s at load 5 on 2 cores, 1.4-2.4 s of the event loop's time in all; whichever
landed after the last chunk delayed the reply's last words by as much. While a reply streams, the
young generations are still collected as usual (most garbage dies young) and only the full
collection is postponed; when the last stream ends the collector's thresholds are put back and the
postponed collection happens when CPython next decides to.

Holds nest (two replies, or a reply ending after the next has started, never release it early).
"""

from __future__ import annotations

import gc

# The third threshold counts young collections before a full one: this many never come during a reply.
_NEVER = 1_000_000_000
_holds = 0
_saved: tuple[int, int, int] | None = None


def hold() -> None:
    """Postpone full collections until every hold is released."""
    global _holds, _saved
    if _holds == 0:
        _saved = gc.get_threshold()
        young, middle, _ = _saved
        gc.set_threshold(young, middle, _NEVER)
    _holds += 1


def release() -> None:
    """One hold fewer; the last one puts the thresholds back."""
    global _holds, _saved
    if _holds == 0:
        return
    _holds -= 1
    if _holds == 0 and _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None


def holding() -> bool:
    return _holds > 0
