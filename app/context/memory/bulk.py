"""Making tens of thousands of objects at once without the garbage collector walking them meanwhile.

A new process with 50,000 memories builds ~100,000 containers while it loads the scope's cache
file and ~50,000 more when the BM25F index adopts its term segment. None of them is garbage, but
every collection the allocations trigger walks all the young ones, and the full collections walk
the whole heap: about 40 % of the load's time at 50,000 memories (bench/memory_scale.py,
gc.disable() against the default). The collector is paused for such a step and resumed after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """No automatic collection inside the block (it is process-wide: keep the block short)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
