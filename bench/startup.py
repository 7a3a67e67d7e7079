"""Start-up figures: process start -> first TUI frame, and one headless turn (wall time, peak memory).

The TUI runs in a real pseudo-terminal; the first frame is the moment its footer
appears on the terminal. The headless turn talks to the local scripted server,
which answers at once, so the figure is our own overhead.
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
import tempfile
import termios
import time
from pathlib import Path

from bench.common import clean_env, median, python, report, timed_hello
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="agentctx-bench-ws-"))
    (root / ".git").mkdir()
    (root / "README.md").write_text("# bench\n")
    return root


def first_frame_seconds(env: dict[str, str], cwd: Path, marker: bytes = b"Quit", timeout: float = 20.0) -> float:
    """Seconds from spawning `python -m app` in a pty until the footer is drawn."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.chdir(cwd)
        os.execve(python(), [python(), "-m", "app"], {**env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"})
    started = time.perf_counter()
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = b""
    try:
        while time.perf_counter() - started < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            seen = (seen + chunk)[-8192:]
            if marker in seen:
                return time.perf_counter() - started
        raise RuntimeError(f"no first frame within {timeout} s; last output: {seen[-400:]!r}")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def headless_turn(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one `-p` turn, measured on the child process alone."""
    return timed_hello([python(), "-m", "app", "-p", "Say hello."], env, cwd, "headless turn")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    server = FakeOpenAIServer(responder=lambda request: Reply.text("Hello! ", "How can I help?", usage=(1200, 8)))
    server.start()
    workspace = _workspace()
    env = clean_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", OPENAI_MODEL="bench-model")
    try:
        headless_turn(env, workspace)  # warm the OS file cache once; not counted
        frames = [first_frame_seconds(env, workspace) for _ in range(args.runs)]
        report("startup.first_tui_frame", median(frames), "s", runs=args.runs, min=min(frames), max=max(frames))
        turns = [headless_turn(env, workspace) for _ in range(args.runs)]
        walls = [w for w, _ in turns]
        peaks = [p for _, p in turns]
        report("headless.one_turn_wall", median(walls), "s", runs=args.runs, min=min(walls), max=max(walls))
        report("headless.one_turn_peak_rss", median(peaks), "MiB", runs=args.runs, max=max(peaks))
    finally:
        server.stop()
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.rmtree(env["AGENTCTX_HOME"], ignore_errors=True)


if __name__ == "__main__":
    main()
