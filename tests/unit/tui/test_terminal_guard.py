"""Textual's writer thread against a terminal that went away (a real pty whose master was closed).

The attack is a closed terminal window: every write fails with EIO. Unguarded, the first failure kills
Textual's writer thread, its bounded queue fills, and the next write (the restore sequences at exit among
them) waits forever. Guarded, the writes are dropped and the thread ends when asked.
"""

from __future__ import annotations

import os
import pty
import sys
import threading

import pytest
from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

from app.tui.terminal_guard import TerminalOutput

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is a POSIX thing")


def hung_up_terminal():  # type: ignore[no-untyped-def]
    master, slave = pty.openpty()
    os.close(master)  # the window closes: the terminal is hung up
    return os.fdopen(slave, "w", encoding="utf-8")


def write_a_screenful_and_stop(stream) -> bool:  # type: ignore[no-untyped-def]
    """Whether a writer thread took many writes and stopped; it runs in a thread of its own, so a hang is seen."""
    writer = WriterThread(stream)
    writer.start()

    def work() -> None:
        for _ in range(MAX_QUEUED_WRITES * 4):
            writer.write("\x1b[?1049l\x1b[?25h" + "x" * 100)
        writer.stop()

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(timeout=30)
    return not worker.is_alive()


def test_writes_to_a_hung_up_terminal_are_dropped_and_never_block() -> None:
    raw = hung_up_terminal()
    guarded = TerminalOutput(raw)
    assert write_a_screenful_and_stop(guarded)
    assert guarded.gone


def test_a_hung_up_terminal_refuses_writes() -> None:
    """What the guard is for, on the bare stream: the write fails (an unguarded writer thread dies of it)."""
    raw = hung_up_terminal()
    with pytest.raises(OSError):
        raw.write("x")
        raw.flush()
