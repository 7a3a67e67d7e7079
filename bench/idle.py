"""Idle CPU: the TUI open in a real pseudo-terminal, nothing typed, nothing streaming.

``python -m app`` starts in a pty (120x40, ``TERM=xterm-256color``) against the
local scripted server, with a private ``AGENTCTX_HOME`` and default settings
(the cursor blinks; the skill folders are watched). After its first frame it
gets ``--settle`` seconds to finish starting (the session opens in a worker,
the model client is imported in the background); then the CPU time the
process and its reaped children used (``utime + stime + cutime + cstime`` from
``/proc/<pid>/stat``) is read over ``--seconds`` of wall time. The pty is read
all along, as a terminal would, and the bytes the app wrote while idle are
reported too. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import termios
import time

from bench.common import clean_env, python, report
from bench.startup import _workspace
from tests.fakes.openai_server import FakeOpenAIServer, Reply

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    # After the ")" that ends the command name: state is field 3, utime..cstime are fields 14-17.
    return sum(int(value) for value in fields[11:15]) / TICKS


def drain(fd: int, until: float) -> int:
    """Read the terminal until ``until`` (perf_counter); the number of bytes read."""
    total = 0
    while (left := until - time.perf_counter()) > 0:
        ready, _, _ = select.select([fd], [], [], min(left, 0.1))
        if ready:
            try:
                total += len(os.read(fd, 65536))
            except OSError:
                break
    return total


def measure(env: dict[str, str], cwd: str, settle: float, seconds: float) -> tuple[float, int]:
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.chdir(cwd)
        os.execve(python(), [python(), "-m", "app"], {**env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        seen = b""
        deadline = time.perf_counter() + 30
        while b"Quit" not in seen:  # the footer: the first frame is up
            if time.perf_counter() > deadline:
                raise RuntimeError(f"no first frame; last output: {seen[-300:]!r}")
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                seen = (seen + os.read(fd, 65536))[-8192:]
        drain(fd, time.perf_counter() + settle)
        before, started = cpu_seconds(pid), time.perf_counter()
        written = drain(fd, started + seconds)
        used, wall = cpu_seconds(pid) - before, time.perf_counter() - started
        return used / wall * 100, int(written / wall)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if not os.path.exists("/proc/self/stat"):
        print("tui.idle_cpu: skipped (no /proc on this system)", flush=True)
        return 0
    server = FakeOpenAIServer(responder=lambda request: Reply.text("OK"))
    server.start()
    workspace = _workspace()
    env = clean_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", OPENAI_MODEL="bench-model")
    try:
        percent, written = measure(env, str(workspace), args.settle, args.seconds)
    finally:
        server.stop()
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.rmtree(env["AGENTCTX_HOME"], ignore_errors=True)
    requests = len(server.requests)
    report("tui.idle_cpu", percent, "% of a core", seconds=args.seconds, bytes_per_second=written, model_requests=requests, target=1.0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
