"""Knowing which memory files changed without looking at all of them.

Listing 50,000 memories costs one ``lstat`` per file, about 190 ms of a turn
on this machine (bench/memory_scale.py), more than the whole 150 ms budget. An
interactive session therefore watches each scope root with ``watchfiles``
(inotify, FSEvents or ReadDirectoryChangesW under one Rust API, already a
dependency for the skills watcher): a turn re-reads only the paths the watcher
reported, plus any directory whose mtime moved (every create, delete and
atomic rename does that at once, so the program's own writes are never late).

A watcher is trusted only after it has reported once (its first report comes
after its watches are in place) and a full listing was done after that: a
change made before the watches existed is then seen by that listing. When a
watcher fails (too many inotify watches, a removed root), ``take`` says so and
the listing goes back to looking at every file.

Headless ``-p`` runs one turn per process and never starts a watcher.
"""

from __future__ import annotations

import threading
from pathlib import Path

# How long the Rust side blocks between checks of the stop flag (it also reports "nothing" then).
_TIMEOUT_MS = 500
# A burst of writes is reported together once it has been quiet this long.
_STEP_MS = 20


class ScopeWatcher:
    """One scope root watched in a daemon thread; ``take`` hands over what changed since the last call."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._changed: set[str] = set()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._failed = False
        self._thread = threading.Thread(target=self._run, name=f"memory-watch-{root.name}", daemon=True)
        self._thread.start()

    @property
    def ready(self) -> bool:
        """True once the watches are in place (and the watcher has not failed)."""
        return self._ready.is_set() and not self._failed

    def wait_ready(self, timeout: float = 5.0) -> bool:
        return self._ready.wait(timeout) and not self._failed

    def take(self) -> set[str] | None:
        """The paths reported since the last call; None when the watcher cannot be trusted."""
        if not self.ready:
            return None
        with self._lock:
            changed, self._changed = self._changed, set()
        return None if self._failed else changed

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        try:
            from watchfiles import watch  # imported here: only an interactive session watches

            for changes in watch(
                self.root,
                watch_filter=None,
                debounce=_STEP_MS * 10,
                step=_STEP_MS,
                stop_event=self._stop,
                rust_timeout=_TIMEOUT_MS,
                yield_on_timeout=True,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                with self._lock:
                    self._changed.update(path for _, path in changes)
                self._ready.set()
        except Exception:  # the listing falls back to lstat-ing every file; watching is an optimisation
            pass
        finally:
            self._failed = True
            self._ready.set()
