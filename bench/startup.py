"""Start-up figures: process start -> first TUI frame -> the TUI takes input, and one headless turn (wall time, peak memory).

The TUI runs in a real pseudo-terminal; the first frame is the moment its footer appears on the
terminal. After one untimed start that keeps its first frame (as a person's earlier session in
the project did), that is the replayed frame (app/tui/frame_cache.py); the TUI takes input when
text typed at the first frame is shown by its prompt. The headless turn talks to the local
scripted server, which answers at once, so the figure is our own overhead.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from bench.common import clean_env, median, python, report, timed_hello
from bench.pty_frames import marks_seconds
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="agentctx-bench-ws-"))
    (root / ".git").mkdir()
    (root / "README.md").write_text("# bench\n")
    return root


# Typed as soon as our first frame is on screen; it shows once the live prompt has taken it.
READY_TEXT = "zq7 ready"


def warm_first_frame(env: dict[str, str], cwd: Path) -> None:
    """One start left alone until it has kept its first frame, so the next start replays it (as the
    person's previous session in this project did; app/tui/frame_cache.py). Not timed."""
    marks_seconds([python(), "-m", "app"], env, cwd, ["Quit"], linger=1.5)


def first_frame_seconds(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(seconds from spawning `python -m app` in a 120x40 pty until its footer is drawn, seconds until
    text typed at that moment is shown by the prompt: the TUI takes input)."""
    first, ready = marks_seconds([python(), "-m", "app"], env, cwd, ["Quit", READY_TEXT], typed=READY_TEXT)
    return first, ready


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
        warm_first_frame(env, workspace)
        pairs = [first_frame_seconds(env, workspace) for _ in range(args.runs)]
        frames, readies = [f for f, _ in pairs], [r for _, r in pairs]
        report("startup.first_tui_frame", median(frames), "s", runs=args.runs, min=min(frames), max=max(frames))
        report("startup.tui_takes_input", median(readies), "s", runs=args.runs, min=min(readies), max=max(readies))
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
