"""Resume of the same session record by two source trees, alternating: before and after a change.

    python -m bench.resume_ab OLD_TREE NEW_TREE [--mb 500] [--runs 3]

Each tree is a directory holding an ``app/`` package (e.g. ``git archive COMMIT app | tar -x -C DIR``).
Every run is a fresh interpreter with that tree first on the path, timing ``load_session`` plus
``entries_from_history`` (wall and CPU time, and the growth of peak RSS as a multiple of the file), runs
alternating between the trees so both see the same load. The record is generated once, as
``bench/sessions.py`` makes it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import machine_load

CHILD = r"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from app.core.session.resume import load_session
from app.tui.widgets.transcript import entries_from_history

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0

before = peak(); wall = time.perf_counter(); cpu = time.process_time()
loaded = load_session(Path(sys.argv[2]))
entries_from_history(loaded.messages, lambda call: call.name)
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "growth": peak() - before}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs=2, type=Path)
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from bench.sessions import SEED, generate_session

    print(f"# {machine_load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="agentctx-bench-resume-ab-") as tmp:
        path = generate_session(Path(tmp), args.mb * 1024 * 1024, random.Random(SEED), session_id="eeeeeeee-0000-4000-8000-000000000005")
        size = path.stat().st_size
        runs: dict[Path, list[dict[str, float]]] = {tree: [] for tree in args.trees}
        for _ in range(args.runs):
            for tree in args.trees:
                env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
                out = subprocess.run([sys.executable, "-c", CHILD, str(tree.resolve()), str(path)], env=env, capture_output=True, text=True, check=True)
                runs[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for tree, results in runs.items():
        wall = statistics.median(r["wall"] for r in results)
        cpu = statistics.median(r["cpu"] for r in results)
        growth = statistics.median(r["growth"] for r in results) / size
        print(f"{tree}: wall {wall:.2f} s, CPU {cpu:.2f} s, peak growth {growth:.2f}x the file (runs: {[round(r['wall'], 2) for r in results]})", flush=True)
    print(f"# {machine_load()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
