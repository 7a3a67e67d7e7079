"""No shell command outlives the agent: a death signal for bash, a kill at exit, a watchdog for the rest.

Three layers, because each misses something:

* ``PR_SET_PDEATHSIG`` (Linux): the kernel sends bash SIGKILL when the thread that
  started it dies, ``kill -9`` included. It is per process and cleared on fork, so
  bash's own children (``make`` -> compilers, a ``&`` job) do not get it. Commands are
  started from the event loop's thread, which lives as long as the program; a
  command started from a short-lived thread would die with that thread, so only
  the loop thread should call ``run_command``.
* At a normal exit (``atexit``) every group still running is killed.
* A watchdog process (one per agent, started before the first command) reads
  ``+PGID`` / ``-PGID`` lines on a pipe from the agent; when the pipe closes, which
  happens however the agent ends, it kills every group still listed. The ``+`` line
  is written by the new child itself, between fork and exec, so a command is listed
  before it runs its first instruction (written by the parent after the spawn, a
  ``kill -9`` in between lost it). It is a few lines of bash: no Python start-up.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

PR_SET_PDEATHSIG = 1

# Reads the agent's list of live groups; on end of input kills what is left. Its own session, so a
# Ctrl-C to the terminal's foreground group does not reach it before it has done its job.
_WATCHDOG = r"""
declare -A live
while IFS= read -r line; do
  case $line in
    +*) live[${line#+}]=1 ;;
    -*) unset "live[${line#-}]" ;;
  esac
done
for group in "${!live[@]}"; do kill -KILL -- "-$group" 2>/dev/null; done
"""


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that lists the child with the watchdog and, on Linux, gives it SIGKILL when this process dies.

    Only for children started with ``start_new_session=True``: the child's pid is then its group's id.
    """
    prctl = _prctl() if sys.platform.startswith("linux") else None
    watchdog = groups.watchdog_fd()
    if prctl is None and watchdog is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        if watchdog is not None:
            try:
                os.write(watchdog, b"+%d\n" % os.getpid())
            except OSError:
                pass
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:  # the agent died between fork and prctl: nobody will kill us
                os._exit(1)

    return preexec


_libc_prctl: Callable[..., int] | None = None


def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl``, loaded once in the parent (loading it after fork is not safe)."""
    global _libc_prctl
    if _libc_prctl is None:
        try:
            import ctypes

            _libc_prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            return None
    return _libc_prctl


class GroupRegistry:
    """The process groups of running commands, killed at exit and known to the watchdog."""

    def __init__(self) -> None:
        self._live: set[int] = set()
        self._lock = threading.Lock()
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._watchdog_failed = False
        self._exit_hook = False

    def started(self, pgid: int) -> None:
        """Called after the spawn (the child has listed itself with the watchdog already)."""
        with self._lock:
            self._live.add(pgid)
            if not self._exit_hook:
                atexit.register(self.kill_all)
                self._exit_hook = True

    def finished(self, pgid: int) -> None:
        with self._lock:
            self._live.discard(pgid)
            self._tell(f"-{pgid}\n")

    @property
    def live(self) -> set[int]:
        with self._lock:
            return set(self._live)

    def kill_all(self) -> None:
        """Kill every group still running (at exit); the watchdog is then told nothing is left."""
        with self._lock:
            live, self._live = self._live, set()
            for pgid in live:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pgid, signal.SIGKILL)
                self._tell(f"-{pgid}\n")

    def watchdog_fd(self) -> int | None:
        """The write end of the watchdog's pipe (started on first use); None when it could not start."""
        with self._lock:
            watchdog = self._start_watchdog()
            return watchdog.stdin.fileno() if watchdog is not None and watchdog.stdin is not None else None

    def _tell(self, line: str) -> None:
        watchdog = self._watchdog
        if watchdog is None or watchdog.stdin is None:
            return
        try:
            # One write of a short line: atomic on a pipe, never interleaved with a child's "+" line.
            os.write(watchdog.stdin.fileno(), line.encode())
        except OSError:  # the watchdog is gone; the death signal and the exit hook still hold
            self._watchdog, self._watchdog_failed = None, True

    def _start_watchdog(self) -> subprocess.Popen[bytes] | None:
        if self._watchdog is not None or self._watchdog_failed:
            return self._watchdog
        try:
            self._watchdog = subprocess.Popen(
                ["bash", "-c", _WATCHDOG],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                bufsize=0,
            )
        except OSError:
            self._watchdog_failed = True
        return self._watchdog


groups = GroupRegistry()
