"""Shared by the benchmarks: figures printed as `name: value unit` and merged into results.json."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.json"


def report(name: str, value: float, unit: str, *, beside: str = "", **extra: object) -> None:
    """Print one figure (``beside``: the absolute figures a ratio comes from) and merge it into results.json."""
    shown = f"{name}: {value:.3f} {unit}" if isinstance(value, float) else f"{name}: {value} {unit}"
    print(shown + (f"  ({beside})" if beside else ""), flush=True)
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    data[name] = {"value": value, "unit": unit, **({"beside": beside} if beside else {}), **extra}
    RESULTS.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def machine_load() -> str:
    """How busy the machine is right now, for a benchmark to print beside its figures."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))})"


def bytecode_state(package: Path = ROOT / "app") -> tuple[int, int]:
    """(modules with an up-to-date .pyc, modules) in ``package``: whether a run compiles from source."""
    import importlib.util

    total = current = 0
    for source in package.rglob("*.py"):
        total += 1
        cached = Path(importlib.util.cache_from_source(str(source)))
        try:
            if cached.stat().st_mtime >= source.stat().st_mtime:
                current += 1
        except OSError:
            pass
    return current, total


def median(values: list[float]) -> float:
    return statistics.median(values)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a user's shell with nothing of ours leaking in, plus a private AGENTCTX_HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTCTX_"))}
    # Sandboxes set this; a user's Python keeps compiled modules, and the warm-up run writes them.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["AGENTCTX_HOME"] = tempfile.mkdtemp(prefix="agentctx-bench-home-")
    env["NO_PROXY"] = "127.0.0.1,localhost"
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def python() -> str:
    return sys.executable


def peak_rss_bytes() -> int:
    """This process's peak resident memory so far.

    ``VmHWM`` belongs to the process image: ``ru_maxrss`` would also count the parent's memory
    when the child was forked from a big parent (Linux keeps it across ``execve``).
    """
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def timed_hello(argv: list[str], env: dict[str, str], cwd: Path, what: str) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one child asked to say hello, measured on the child alone.

    Raises RuntimeError (with the end of its output) unless it exits 0 and says hello.
    """
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    out = process.stdout.read() if process.stdout else b""
    err = process.stderr.read() if process.stderr else b""
    if os.waitstatus_to_exitcode(status) != 0 or b"hello" not in out.lower():
        raise RuntimeError(f"{what} failed: {(err or out).decode(errors='replace')[-500:]}")
    return wall, usage.ru_maxrss / 1024  # Linux reports KiB
