"""`make bench`: run every benchmark script; each prints its figures and merges them into bench/results.json.

The machine's load is printed at the start and at the end (and kept in results.json under ``machine``),
because on a shared machine it moves whole-process figures by tens of percent; the ratios against a
peer (Qwen Code, ripgrep) come from alternating runs and move much less, so they are the headline,
printed again at the end with the absolute figures beside them.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from bench.common import RESULTS, bytecode_state, machine_load

SCRIPTS = ["startup", "peers", "search", "instructions", "context_report", "compaction", "skills", "memory", "memory_scale", "sessions", "tui", "idle", "shell"]
HEADLINES = (
    "peers.qwen_code_wall_ratio",
    "peers.qwen_code_wall_ratio_no_bytecode_writes",
    "peers.qwen_code_memory_ratio",
    "peers.qwen_code_first_frame_ratio",
    "peers.qwen_code_takes_input_ratio",
    "search.grep_rare_vs_rg",
    "search.grep_common_vs_rg",
    "search.glob_narrow_vs_rg",
    "search.glob_vs_rg",
    "search.glob_sorted_vs_rg",
    "search.correct",
)


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    names = sys.argv[1:] or SCRIPTS
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    at_start = machine_load()
    compiled, modules = bytecode_state()
    print(f"# {started}; {at_start}; {platform.python_implementation()} {platform.python_version()}", flush=True)
    print(f"# bytecode: {compiled} of {modules} modules in app/ compiled and current", flush=True)
    failed = 0
    for name in names:
        print(f"# bench/{name}.py", flush=True)
        failed |= subprocess.call([sys.executable, "-m", f"bench.{name}"], cwd=root) != 0
    at_end = machine_load()
    print(f"# end {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {at_end}", flush=True)
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    data["machine"] = {"started": started, "load_at_start": at_start, "load_at_end": at_end, "bytecode": f"{compiled}/{modules}"}
    RESULTS.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    print("# headline: ratios from alternating runs (absolute figures beside)", flush=True)
    for key in HEADLINES:
        if key in data:
            figure = data[key]
            print(f"{key}: {figure['value']:.2f} {figure['unit']}  ({figure.get('beside', '')})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
