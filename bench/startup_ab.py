"""One headless turn by two source trees, alternating: before and after a start-up change.

    python -m bench.startup_ab OLD_TREE NEW_TREE [--runs 11]

Each tree is a directory holding an ``app/`` package (e.g. ``git archive COMMIT app | tar -x -C DIR``,
then ``python -m compileall -q DIR/app``). Every run is ``python -m app -p "Say hello."`` with that
tree as ``PYTHONPATH``, against the same local scripted server, in the same workspace, each tree
with its own ``AGENTCTX_HOME`` kept across its runs (as ``bench.peers`` does). The order turns each
round; the figures are the median and minimum of wall time and of CPU time (user + system, from
``wait4``), which moves much less than wall time on a shared machine. The load is printed before
and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import clean_env, machine_load
from bench.startup import _workspace
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trees", nargs=2, type=Path)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    server = FakeOpenAIServer(responder=lambda request: Reply.text("Hello! ", "How can I help?", usage=(1200, 8)))
    server.start()
    workspace = _workspace()
    homes = {tree: tempfile.mkdtemp(prefix="agentctx-ab-home-") for tree in args.trees}
    walls: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    cpus: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    print(f"# before: {machine_load()}", flush=True)
    try:
        for round_no in range(args.runs + 1):  # round 0 warms the file cache; not counted
            for tree in args.trees if round_no % 2 == 0 else args.trees[::-1]:
                env = clean_env(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench", OPENAI_MODEL="bench-model")
                shutil.rmtree(env["AGENTCTX_HOME"], ignore_errors=True)
                env.update(PYTHONPATH=str(tree.resolve()), AGENTCTX_HOME=homes[tree])
                started = time.perf_counter()
                proc = subprocess.Popen([sys.executable, "-m", "app", "-p", "Say hello."], cwd=workspace, env=env, stdout=subprocess.DEVNULL)
                _, status, usage = os.wait4(proc.pid, 0)
                if status != 0:
                    raise SystemExit(f"{tree}: the turn failed (wait status {status})")
                if round_no:
                    walls[tree].append(time.perf_counter() - started)
                    cpus[tree].append(usage.ru_utime + usage.ru_stime)
    finally:
        server.stop()
        shutil.rmtree(workspace, ignore_errors=True)
        for home in homes.values():
            shutil.rmtree(home, ignore_errors=True)
    print(f"# after: {machine_load()}", flush=True)
    for tree in args.trees:
        wall, cpu = walls[tree], cpus[tree]
        print(
            f"{tree}: wall median {statistics.median(wall):.3f} s (min {min(wall):.3f}), "
            f"CPU median {statistics.median(cpu):.3f} s (min {min(cpu):.3f}), {len(wall)} runs",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
