"""The consolidation lock: one dream at a time per project, across processes.

The file holds its holder's PID. A lock whose holder is dead, or that is over
an hour old, is stale: a crashed process must not stop dreaming for good.

Clearing a stale lock is a look and then a delete. Between the two, another
process may have cleared the same stale lock and taken a fresh one, which the
delete would then remove: two dreams at once. So looking, clearing and taking
happen under an flock on a file beside the lock (``<lock>.guard``), which the
kernel releases when its holder dies: the guard itself can never go stale.

``fcntl`` exists only on POSIX: it is imported when the guard is first taken,
and Windows takes the same kind of lock with ``msvcrt.locking`` (also released
when the holder dies), so importing the runtime never fails for it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

DREAM_LOCK_STALE_SECONDS = 3_600  # DREAM_LOCK_STALE_MS = 3 600 000


class LockState(StrEnum):
    FREE = "free"
    HELD = "held"
    STALE = "stale"


@dataclass(frozen=True)
class LockStatus:
    state: LockState
    pid: int | None = None
    age: float | None = None  # seconds


def pid_alive(pid: int) -> bool:
    """Whether a process with this PID exists (signal 0 checks without sending anything)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, it is just not ours
        return True
    except OSError:
        return False
    return True


def parse_lock_pid(content: str | None) -> int | None:
    try:
        pid = int((content or "").strip())
    except ValueError:
        return None
    return pid if pid > 0 else None


def lock_status(content: str | None, mtime: float | None, now: float, is_alive: Callable[[int], bool] = pid_alive) -> LockStatus:
    """What a lock file with this content and modification time means at ``now``.

    ``content`` None means there is no lock file. A file without a readable PID
    has no holder to wait for, so it counts as stale.
    """
    if content is None or mtime is None:
        return LockStatus(LockState.FREE)
    pid = parse_lock_pid(content)
    age = max(0.0, now - mtime)
    if pid is None or age > DREAM_LOCK_STALE_SECONDS or not is_alive(pid):
        return LockStatus(LockState.STALE, pid, age)
    return LockStatus(LockState.HELD, pid, age)


def inspect_lock(path: Path, now: float, is_alive: Callable[[int], bool] = pid_alive) -> LockStatus:
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
        mtime = path.stat().st_mtime
    except OSError:
        return LockStatus(LockState.FREE)
    return lock_status(content, mtime, now, is_alive)


def clear_stale_lock(path: Path, now: float, is_alive: Callable[[int], bool] = pid_alive) -> LockStatus:
    """Remove the lock if it is stale; returns what it was."""
    with _guarded(path):
        status = inspect_lock(path, now, is_alive)
        if status.state is LockState.STALE:
            remove_lock(path)
    return status


def acquire_lock(path: Path, pid: int | None = None) -> bool:
    """Create the lock holding ``pid`` (default: this process); False when it already exists."""
    with _guarded(path):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid() if pid is None else pid))
    return True


@contextmanager
def _guarded(path: Path) -> Iterator[None]:
    """The lock file's guard, held for the few microseconds of a look-and-change."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".guard"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _lock_exclusive(fd)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def _lock_exclusive(fd: int) -> None:
    """Block until this process holds the exclusive lock on ``fd``."""
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    import msvcrt  # Windows: lock the file's first byte; LK_LOCK retries for ten seconds, so loop

    while True:
        try:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]
            return
        except OSError:
            continue


def remove_lock(path: Path) -> bool:
    """Delete the lock; False when that failed (the caller then forces it off next time)."""
    try:
        path.unlink()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
