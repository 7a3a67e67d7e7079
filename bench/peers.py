"""Qwen Code side by side: the same one-turn headless job, against the same local server.

Both programs get a fresh workspace (a `.git` dir and a README), the prompt
"Say hello." and the same scripted OpenAI-compatible server on 127.0.0.1, which
answers every chat request at once (Qwen Code also sends a memory-extraction
request after its turn; it gets the same short answer). Runs alternate (ours,
theirs, ours, ...) so both see the same machine load; the figures are medians
of whole-process wall time and peak RSS (``wait4``), and their ratio.

Qwen Code is installed with npm into the git-ignored ``bench/.peers/`` on first
use: exactly ``@qwen-code/qwen-code@0.24.4`` (the current release; it asks for
node >= 22 but runs on node 20, where an unpinned install would get 0.15.10), or
the spec in ``QWEN_CODE_PACKAGE``. Our side runs twice per round, as a user's
shell runs it and with ``PYTHONDONTWRITEBYTECODE=1``: ours, theirs, ours without
bytecode writes, with the order turned each round. The load and how much of ``app/`` is compiled are
printed first. Then the first TUI frame, alternating (``--frames`` rounds): ours is the moment our footer
is drawn (``bench.startup.first_frame_seconds``); Qwen Code's, run interactively in the same kind of pty
(120x40), is the moment its banner and tips are on screen, and the moment its input box shows its
placeholder (it can take input) is reported beside it. Without npm, or
when the install fails, a line says the comparison was skipped and why. Qwen
Code runs with ``HOME`` set to a temporary dir whose settings turn off
telemetry, usage statistics and update checks, so it reads nothing of the user's
and sends nothing anywhere else.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.common import ROOT, bytecode_state, clean_env, machine_load, median, report, timed_hello
from bench.pty_frames import marks_seconds
from bench.startup import _workspace, first_frame_seconds, headless_turn, warm_first_frame
from tests.fakes.openai_server import FakeOpenAIServer, Reply

PEERS = ROOT / "bench" / ".peers"
DEFAULT_PACKAGE = "@qwen-code/qwen-code@0.24.4"
QWEN_SETTINGS = {
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
}


def skipped(reason: str) -> None:
    print(f"peers.qwen_code: skipped ({reason})", flush=True)


def install_qwen(package: str) -> tuple[Path, str]:
    """The `qwen` executable (installed when missing) and its version; raises RuntimeError with the reason."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH; install Node.js >= 20 to compare with Qwen Code")
    folder = PEERS / re.sub(r"[^A-Za-z0-9._-]+", "_", package.lstrip("@"))
    binary = folder / "node_modules" / ".bin" / "qwen"
    if not binary.exists():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"# installing {package} into {folder.relative_to(ROOT)} (npm)", flush=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(folder), package],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not binary.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"npm install {package} failed: {' / '.join(tail) or 'no output'}")
    manifest = folder / "node_modules" / "@qwen-code" / "qwen-code" / "package.json"
    version = json.loads(manifest.read_text())["version"] if manifest.exists() else "unknown"
    return binary, version


def qwen_turn(binary: Path, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one `qwen -p` turn."""
    return timed_hello([str(binary), "--auth-type", "openai", "-p", "Say hello."], env, cwd, "qwen turn")


# Qwen Code's start-up screen: first its banner and tips (the first frame), then, once it has
# initialised, the input box's placeholder (the moment one can type).
QWEN_FIRST_FRAME, QWEN_READY = "Tips", "@path/to/file"


def qwen_frames(binary: Path, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(seconds to Qwen Code's first frame, seconds until its prompt takes input) in a real pty."""
    first, ready = marks_seconds([str(binary), "--auth-type", "openai"], env, cwd, [QWEN_FIRST_FRAME, QWEN_READY])
    return first, ready


def qwen_env(base_url: str) -> dict[str, str]:
    home = Path(tempfile.mkdtemp(prefix="qwen-bench-home-"))
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text(json.dumps(QWEN_SETTINGS))
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home.as_posix(),
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "bench",
        "OPENAI_MODEL": "bench-model",
        "NO_PROXY": "127.0.0.1,localhost",
        "TERM": "dumb",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--frames", type=int, default=5, help="alternating rounds of the first-frame comparison (0: skip it)")
    args = parser.parse_args()
    package = os.environ.get("QWEN_CODE_PACKAGE", DEFAULT_PACKAGE)
    try:
        binary, version = install_qwen(package)
    except (RuntimeError, OSError) as exc:
        skipped(str(exc))
        return 0
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    server = FakeOpenAIServer(responder=lambda request: Reply.text("Hello! ", "How can I help?", usage=(1200, 8)))
    server.start()
    ours_env = clean_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", OPENAI_MODEL="bench-model")
    # The same run where Python writes no bytecode (a sandbox, a read-only install): after `make`
    # every module of ours is compiled already, so it should not matter; this shows whether it does.
    no_writes_env = {**ours_env, "PYTHONDONTWRITEBYTECODE": "1"}
    theirs_env = qwen_env(server.base_url)
    ours_ws, no_writes_ws, theirs_ws = _workspace(), _workspace(), _workspace()
    compiled, modules = bytecode_state()
    print(f"# {machine_load()}; bytecode: {compiled} of {modules} modules in app/ compiled; node {node}", flush=True)
    try:
        try:  # one warm-up each (file cache, node's compile cache); not counted
            headless_turn(ours_env, ours_ws)
            headless_turn(no_writes_env, no_writes_ws)
            qwen_turn(binary, theirs_env, theirs_ws)
        except RuntimeError as exc:
            skipped(str(exc))
            return 0
        ours, no_writes, theirs = [], [], []
        steps = [
            lambda: ours.append(headless_turn(ours_env, ours_ws)),
            lambda: theirs.append(qwen_turn(binary, theirs_env, theirs_ws)),
            lambda: no_writes.append(headless_turn(no_writes_env, no_writes_ws)),
        ]
        for round_no in range(args.runs):
            # The order turns each round: whatever runs right after Qwen Code (whose node process
            # leaves work behind as it exits) is not always the same one of ours.
            for step in steps[round_no % 3 :] + steps[: round_no % 3]:
                step()
        frames: list[float] = []
        ours_ready: list[float] = []
        qwen_first: list[float] = []
        qwen_ready: list[float] = []
        if args.frames > 0:
            try:
                # Warm-ups, not counted: Qwen Code's (node's compile cache, the file cache) and ours,
                # which keeps its first frame for the next start (app/tui/frame_cache.py).
                qwen_frames(binary, theirs_env, theirs_ws)
                warm_first_frame(ours_env, ours_ws)
                for round_no in range(args.frames):
                    pair = [
                        lambda: _append_pair(frames, ours_ready, first_frame_seconds(ours_env, ours_ws)),
                        lambda: _append_pair(qwen_first, qwen_ready, qwen_frames(binary, theirs_env, theirs_ws)),
                    ]
                    for step in pair if round_no % 2 == 0 else pair[::-1]:
                        step()
            except RuntimeError as exc:
                print(f"peers.qwen_code first frame: skipped ({exc})", flush=True)
                frames.clear()
    finally:
        server.stop()
        for folder in (ours_env["AGENTCTX_HOME"], theirs_env["HOME"], ours_ws, no_writes_ws, theirs_ws):
            shutil.rmtree(folder, ignore_errors=True)
    ours_wall, theirs_wall = median([w for w, _ in ours]), median([w for w, _ in theirs])
    no_writes_wall = median([w for w, _ in no_writes])
    ours_rss, theirs_rss = median([m for _, m in ours]), median([m for _, m in theirs])
    extra = {"runs": args.runs, "qwen_code_version": version, "node": node, "load": machine_load()}
    report("peers.agentctx_one_turn_wall", ours_wall, "s", **extra)
    report("peers.agentctx_one_turn_wall_no_bytecode_writes", no_writes_wall, "s", **extra)
    report("peers.qwen_code_one_turn_wall", theirs_wall, "s", **extra)
    report("peers.agentctx_one_turn_peak_rss", ours_rss, "MiB", **extra)
    report("peers.qwen_code_one_turn_peak_rss", theirs_rss, "MiB", **extra)
    versus = f"Qwen Code {version} {theirs_wall:.2f} s"
    report("peers.qwen_code_wall_ratio", theirs_wall / ours_wall, "x", target=10.0,
           beside=f"ours {ours_wall:.2f} s vs {versus}, median of {args.runs} alternating runs", **extra)
    report("peers.qwen_code_wall_ratio_no_bytecode_writes", theirs_wall / no_writes_wall, "x", target=10.0,
           beside=f"ours with PYTHONDONTWRITEBYTECODE=1 {no_writes_wall:.2f} s vs {versus}", **extra)
    report("peers.qwen_code_memory_ratio", theirs_rss / ours_rss, "x",
           beside=f"peak RSS ours {ours_rss:.0f} MiB vs Qwen Code {theirs_rss:.0f} MiB", **extra)
    if frames:
        ours_frame, ours_input = median(frames), median(ours_ready)
        first, ready = median(qwen_first), median(qwen_ready)
        frame_extra = {**extra, "runs": len(frames)}
        report("peers.agentctx_first_frame", ours_frame, "s", **frame_extra)
        report("peers.agentctx_takes_input", ours_input, "s", **frame_extra)
        report("peers.qwen_code_first_frame", first, "s", **frame_extra)
        report("peers.qwen_code_prompt_ready", ready, "s", **frame_extra)
        report("peers.qwen_code_first_frame_ratio", first / ours_frame, "x", target=10.0,
               beside=f"first frame ours {ours_frame:.2f} s (the kept frame) vs Qwen Code {version} {first:.2f} s (its banner), median of {len(frames)} alternating runs in a pty", **frame_extra)
        report("peers.qwen_code_takes_input_ratio", ready / ours_input, "x",
               beside=f"takes input: ours {ours_input:.2f} s (typed text shown by the prompt) vs Qwen Code {ready:.2f} s (its input box's placeholder shown)", **frame_extra)
    return 0


def _append_pair(firsts: list[float], readies: list[float], pair: tuple[float, float]) -> None:
    firsts.append(pair[0])
    readies.append(pair[1])


if __name__ == "__main__":
    raise SystemExit(main())
