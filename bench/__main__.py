"""`make bench`: run every benchmark script; each prints its figures and merges them into bench/results.json."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPTS = ["startup", "peers", "instructions", "context_report", "compaction", "skills", "memory", "sessions", "tui", "idle", "shell"]


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    failed = 0
    for name in SCRIPTS:
        print(f"# bench/{name}.py", flush=True)
        failed |= subprocess.call([sys.executable, "-m", f"bench.{name}"], cwd=root) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
