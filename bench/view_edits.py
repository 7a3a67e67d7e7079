"""View-edit figures: the part ids of a 100 MB history (20,000 messages), first request and later ones.

``python -m bench.view_edits``. Every request computes each message's stable id (a hash of its text);
the first one hashes the whole history, later ones reuse the ids of the same message objects.
Printed only (not merged into results.json, so running it leaves the checkout as it was).
"""

from __future__ import annotations

import statistics
import time

from bench.common import machine_load
from app.context.view_edits import ViewEdits
from app.core.history import Message


def main() -> None:
    history = [Message.user(f"q{i} " + "x" * 5_000) if i % 2 == 0 else Message(role="assistant", content=f"a{i} " + "y" * 5_000) for i in range(20_000)]
    print(f"# {machine_load()}")
    colds, warms = [], []
    for _ in range(3):
        edits = ViewEdits()
        started = time.perf_counter()
        edits.edit_view(history)
        colds.append(time.perf_counter() - started)
        edits.apply("drop", edits.ids_of(history)[10])
        for _ in range(5):
            started = time.perf_counter()
            edits.edit_view(history)
            warms.append(time.perf_counter() - started)
    print(f"view_edits.ids_first_request_100mb: {statistics.median(colds) * 1000:.0f} ms")
    print(f"view_edits.ids_later_request_100mb: {statistics.median(warms) * 1000:.1f} ms (one part dropped)")


if __name__ == "__main__":
    main()
