"""When a full-screen program shows given text in a real pseudo-terminal (its first frames).

Used for Qwen Code's start-up screen in ``bench.peers``. The output is matched with escape
sequences taken out, since an Ink or Textual screen puts colour codes between the letters of a
word (Qwen Code's placeholder starts with a highlighted cursor cell).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Sequence
from pathlib import Path

_ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_=>]")


def marks_seconds(
    argv: Sequence[str], env: dict[str, str], cwd: Path, markers: Sequence[str], *, timeout: float = 60.0, typed: str = "", linger: float = 0.0
) -> list[float]:
    """Seconds from spawning ``argv`` in a 120x40 pty until each marker has appeared (in order given).

    ``typed`` is written to the terminal as soon as the first marker is on screen (as a person
    starts typing when the screen appears); a later marker may be that text, shown by the program.
    ``linger``: seconds the program keeps running after the last marker, before it is killed.
    """
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.chdir(cwd)
        os.execve(argv[0], list(argv), {**env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    started = time.perf_counter()
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    raw = b""
    found: dict[str, float] = {}
    try:
        while len(found) < len(markers):
            left = timeout - (time.perf_counter() - started)
            if left <= 0:
                missing = [m for m in markers if m not in found]
                text = _ESCAPES.sub(b"", raw).decode("utf-8", "replace")
                raise RuntimeError(f"{argv[0]}: {missing} not on screen within {timeout:.0f} s; last text: {text[-400:]!r}")
            ready, _, _ = select.select([fd], [], [], min(0.05, left))
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            now = time.perf_counter() - started
            raw += chunk
            text = _ESCAPES.sub(b"", raw[-65536:]).decode("utf-8", "replace")
            for marker in markers:
                if marker not in found and marker in text:
                    found[marker] = now
            if typed and markers[0] in found:
                os.write(fd, typed.encode())
                typed = ""
        if len(found) < len(markers):
            raise RuntimeError(f"{argv[0]} closed the terminal before showing {[m for m in markers if m not in found]}")
        if linger:
            time.sleep(linger)
        return [found[m] for m in markers]
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
