"""Sessions: resuming a 500 MB session record, and listing 1,000 sessions.

Resume is measured in a fresh subprocess per run: ``load_session`` plus building
the transcript entries the TUI shows (``entries_from_history``), wall time, CPU
time (``process_time``, which a loaded machine moves less) and the growth of peak
RSS (``VmHWM`` after minus before, imports excluded) as a multiple of the file
size. Targets: <= 3 s and <= 1.5x the file size. ``--resume-mb`` sets the size.

The record is generated (seeded) the way the recorder writes it: user prompts,
answers with some thinking, tool calls, and tool results from 300 B to 400 KB
(mostly small: tens of thousands of records), about a tenth of them repeating
an earlier one (stored once, as a reference).

Listing: 1,000 sessions of mixed sizes (most small, some of several MB), half of
them titled early and then grown, ``list_sessions`` with no limit, warm cache.
Target: <= 300 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import median, peak_rss_bytes, python, report

SEED = 20260819
RESUME_MB = 500
RESUME_RUNS = 3
LIST_SESSIONS = 1_000
LIST_RUNS = 7
# Tool result sizes and how often each occurs: mostly small, a few big file dumps.
RESULT_SIZES = (300, 1_500, 6_000, 20_000, 60_000, 150_000, 400_000)
RESULT_WEIGHTS = (30, 30, 20, 12, 5, 2, 1)
WORDS = ["parser", "token", "session", "resume", "budget", "window", "summary", "cache", "index", "record", "branch", "review"]


def _block(rng: random.Random, size: int) -> str:
    """Code-like text, about ``size`` characters."""
    lines = []
    total = 0
    while total < size:
        line = f"    {rng.choice(WORDS)}_{rng.randrange(1000)} = {rng.choice(WORDS)}({rng.randrange(100)})  # {rng.choice(WORDS)} {rng.choice(WORDS)}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


class _Text:
    """Cheap unique text of a given size: slices of one large block, each with its own header."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.base = _block(rng, 1_200_000)

    def make(self, size: int, label: str) -> str:
        start = self.rng.randrange(0, len(self.base) - size - 1)
        return f"# {label}\n" + self.base[start : start + size]


def generate_session(chats: Path, target_bytes: int, rng: random.Random, *, session_id: str | None = None, branch: str | None = None, title: str | None = None) -> Path:
    from app.core.history import Message, ToolCall, Usage
    from app.core.session.recorder import SessionRecorder

    text = _Text(rng) if target_bytes > 200_000 else None
    rec = SessionRecorder(chats, session_id=session_id, cwd=Path("/home/dev/project"), version="bench", git_branch=branch)
    earlier: list[str] = []
    turn = 0
    while True:
        turn += 1
        rec.append_message(Message.user(f"step {turn}: look at the {rng.choice(WORDS)} and the {rng.choice(WORDS)} " + "please " * rng.randrange(1, 30)), durable=False)
        if turn == 1 and title:
            rec.append_message(Message(role="assistant", content="Starting."))
            rec.append_title(title, "auto")
        for call_no in range(rng.randrange(1, 4)):
            call = ToolCall(f"call_{turn}_{call_no}", "read_file", json.dumps({"path": f"src/{rng.choice(WORDS)}.py"}))
            rec.append_message(Message(role="assistant", content="", tool_calls=[call]), usage=Usage(prompt_tokens=1000 * turn), model="bench-model")
            if earlier and rng.random() < 0.1:
                output = rng.choice(earlier)  # the same file read again
            elif text is not None:
                size = rng.choices(RESULT_SIZES, RESULT_WEIGHTS)[0]
                output = text.make(size, f"{turn}.{call_no}")
                if len(earlier) < 50:
                    earlier.append(output)
            else:
                output = f"# {turn}.{call_no}\n" + _block(rng, rng.choice((300, 1_500, 6_000)))
            rec.append_message(Message.tool_result(call, output))
        reasoning = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 200)))
        rec.append_message(Message(role="assistant", content=f"Done with step {turn}. " + "Details follow. " * rng.randrange(1, 40), reasoning=reasoning), usage=Usage(prompt_tokens=1000 * turn + 500), model="bench-model")
        if rec.path.stat().st_size >= target_bytes:
            return rec.path


# -- resume -------------------------------------------------------------------------------------


def _child_resume(path: Path) -> None:
    """Run in a fresh interpreter: one resume, printed as JSON."""
    from app.core.session.resume import load_session
    from app.tui.widgets.transcript import entries_from_history

    before = peak_rss_bytes()
    started = time.perf_counter()
    cpu = time.process_time()
    loaded = load_session(path)
    entries = entries_from_history(loaded.messages)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    after = peak_rss_bytes()
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_growth": after - before, "messages": len(loaded.messages), "entries": len(entries), "warnings": len(loaded.warnings)}))


def bench_resume(tmp: Path, megabytes: int = RESUME_MB) -> None:
    rng = random.Random(SEED)
    path = generate_session(tmp / "resume", megabytes * 1024 * 1024, rng, session_id="bbbbbbbb-0000-4000-8000-000000000001")
    size = path.stat().st_size
    runs = []
    for _ in range(RESUME_RUNS):
        out = subprocess.run([python(), "-m", "bench.sessions", "--child-resume", str(path)], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    seconds = median([r["seconds"] for r in runs])
    growth = median([r["peak_growth"] for r in runs])
    extra = {"file_mb": round(size / 1024 / 1024, 1), "messages": runs[0]["messages"], "entries": runs[0]["entries"], "target": 3.0,
             "cpu_s": round(median([r["cpu"] for r in runs]), 2), "all_s": [round(r["seconds"], 2) for r in runs]}
    report(f"sessions.resume_{megabytes}mb", seconds, "s", **extra)
    report(f"sessions.resume_{megabytes}mb_peak_memory", growth / size, "x file size", peak_mb=round(growth / 1024 / 1024, 1), file_mb=extra["file_mb"], target=1.5)


# -- listing ------------------------------------------------------------------------------------


def bench_listing(tmp: Path) -> None:
    from app.core.session.listing import list_sessions

    rng = random.Random(SEED + 1)
    chats = tmp / "many"
    for n in range(LIST_SESSIONS):
        roll = rng.random()
        size = rng.randrange(3_000, 60_000) if roll < 0.9 else rng.randrange(100_000, 1_000_000) if roll < 0.99 else rng.randrange(2_000_000, 5_000_000)
        title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} work {n}" if n % 2 else None
        generate_session(chats, size, rng, branch=rng.choice(("main", "feature/x", None)), title=title)
    total = sum(p.stat().st_size for p in chats.iterdir())
    list_sessions(chats)  # warm the page cache
    times = []
    for _ in range(LIST_RUNS):
        started = time.perf_counter()
        found = list_sessions(chats)
        times.append((time.perf_counter() - started) * 1000)
    assert len(found) == LIST_SESSIONS
    titled = sum(1 for s in found if s.title)
    report("sessions.list_1000", median(times), "ms", sessions=len(found), titled=titled, total_mb=round(total / 1024 / 1024, 1), target=300)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child-resume", type=Path)
    parser.add_argument("--only", choices=("resume", "list"))
    parser.add_argument("--resume-mb", type=int, default=RESUME_MB)
    args = parser.parse_args()
    if args.child_resume:
        _child_resume(args.child_resume)
        return 0
    with tempfile.TemporaryDirectory(prefix="agentctx-bench-sessions-") as tmp:
        if args.only in (None, "list"):
            bench_listing(Path(tmp))
        if args.only in (None, "resume"):
            bench_resume(Path(tmp), args.resume_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
