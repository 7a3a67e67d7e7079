"""Textual's terminal driver, made safe for a terminal that went away (a closed window: SIGHUP).

Textual writes from a thread through a bounded queue. A write to a hung-up terminal fails (EIO); the
thread dies of it, the queue fills, and the next write, the terminal's restore sequences at exit among
them, waits forever: the process hangs instead of exiting. Here a failed write marks the terminal gone
and every later write is dropped. Reading a hung-up terminal fails the same way; that ends input quietly
(the SIGHUP that comes with it ends the app) instead of a crash report nobody can read.
"""

from __future__ import annotations

import sys
from typing import IO

from textual.drivers.linux_driver import LinuxDriver


class TerminalOutput:
    """A stream for Textual's writer thread that drops what a dead terminal cannot take."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._stream.write(text)
            except (OSError, ValueError):
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self.gone = True

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return True


def guarded(driver: type[LinuxDriver]) -> type[LinuxDriver]:
    """``driver`` with its output through ``TerminalOutput`` and its input ending quietly on a read error."""

    class GuardedDriver(driver):  # type: ignore[valid-type,misc]
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            self._file = TerminalOutput(self._file or sys.__stderr__)

        def run_input_thread(self) -> None:
            try:
                super().run_input_thread()
            except OSError:
                return

    GuardedDriver.__name__ = GuardedDriver.__qualname__ = f"Guarded{driver.__name__}"
    return GuardedDriver
