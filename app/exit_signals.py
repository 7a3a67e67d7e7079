"""SIGTERM and SIGHUP end the program the way Ctrl+C ends a turn: the partial answer kept, then a clean exit.

``timeout``, ``docker stop``, systemd and CI runners send SIGTERM; a closing terminal sends SIGHUP. Left to
their default action they kill the process where it stands: the answer being streamed is lost, the shell
commands it started are left to the watchdog, and the TUI leaves the terminal on the alternate screen with
the mouse tracked and the cursor hidden. Here the first such signal asks the program to end (the headless
turn and the TUI each say how), and the exit code is the shell's for a death by that signal (128 + its
number: 143 for SIGTERM, 129 for SIGHUP), so a caller sees what it would have seen.

A signal that comes again while the program is ending changes nothing: the end is already under way and
bounded (a shell command gets its grace period, hooks their timeouts, and the TUI a last limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator

EXIT_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGHUP)


def exit_code(signum: int) -> int:
    """The status a shell reports for a process that died of ``signum``."""
    return 128 + signum


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


class ExitSignals:
    """Which exit signal came first, handled on a running event loop."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.count = 0  # every exit signal, the ones that came while ending too
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def code(self) -> int | None:
        return None if self.received is None else exit_code(self.received)

    def install(self, loop: asyncio.AbstractEventLoop, on_first: Callable[[int], None]) -> bool:
        """Call ``on_first(signum)`` on the loop for the first SIGTERM or SIGHUP; False where signals cannot be handled."""
        try:
            for sig in EXIT_SIGNALS:
                loop.add_signal_handler(sig, self._arrived, sig, on_first)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals (Windows)
            return False
        self._loop = loop
        return True

    def uninstall(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None or loop.is_closed():
            return
        for sig in EXIT_SIGNALS:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)

    def _arrived(self, signum: int, on_first: Callable[[int], None]) -> None:
        self.count += 1
        if self.received is not None:
            return
        self.received = signum
        # From now on a signal is counted and ignored, to the very end of the process: the loop's handlers
        # would be reset to the default (death by signal) when the loop closes, before the program has exited.
        self.uninstall()
        for sig in EXIT_SIGNALS:
            with contextlib.suppress(ValueError):
                signal.signal(sig, self._again)
        on_first(signum)

    def _again(self, _signum: int, _frame: object) -> None:
        # A Python handler, not SIG_IGN: an ignored signal would stay ignored in programs started later.
        self.count += 1


@contextlib.contextmanager
def exit_on_signals() -> Iterator[None]:
    """Until an event loop takes them over: the signal raises ``SystemExit(128 + n)``, so ``finally`` blocks run.

    For the moments before the TUI's loop runs (the kept first frame is already on screen and must be undone).
    """
    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(exit_code(signum))

    previous = {}
    try:
        for sig in EXIT_SIGNALS:
            previous[sig] = signal.signal(sig, leave)
    except ValueError:  # not the main thread: leave the defaults
        pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if signal.getsignal(sig) is leave:  # a loop that took the signals over has set its own since
                with contextlib.suppress(ValueError, TypeError):
                    signal.signal(sig, handler)


def let_go_of_dead_terminal() -> None:
    """After a hang-up, point the standard streams at /dev/null if the terminal no longer takes writes.

    Otherwise the interpreter's last flush of stdout fails on the dead terminal and turns the exit
    code into 120 (or an error message nobody can read is written into it).
    """
    for stream, fd in ((sys.stdout, 1), (sys.stderr, 2)):
        try:
            if stream is not None:
                stream.flush()
            os.write(fd, b"")  # a hung-up terminal refuses even an empty write (EIO)
        except (OSError, ValueError):
            _to_devnull(fd)


def _to_devnull(fd: int) -> None:
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
