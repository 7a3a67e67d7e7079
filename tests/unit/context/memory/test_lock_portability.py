"""The dream lock on a platform without fcntl (Windows): importing must not fail, and the guard
falls back to msvcrt's byte lock."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(ROOT), "AGENTCTX_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
    )


def test_the_runtime_imports_when_fcntl_is_missing(tmp_path: Path) -> None:
    # sys.modules["fcntl"] = None makes `import fcntl` raise ImportError, as on Windows.
    result = _run(
        """
        import sys
        sys.modules["fcntl"] = None
        import app.context.memory.schedule
        import app.runtime
        print("imported")
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "imported" in result.stdout


def test_without_fcntl_the_guard_takes_msvcrts_lock(tmp_path: Path) -> None:
    # A stand-in msvcrt module records what the guard asks of it (the real one exists only on Windows).
    result = _run(
        f"""
        import sys, types
        sys.modules["fcntl"] = None
        from app.context.memory.schedule import acquire_lock  # before the stand-in: subprocess probes msvcrt
        calls = []
        msvcrt = types.ModuleType("msvcrt")
        msvcrt.LK_LOCK = 1
        msvcrt.locking = lambda fd, mode, size: calls.append((mode, size))
        sys.modules["msvcrt"] = msvcrt
        from pathlib import Path
        lock = Path({str(tmp_path)!r}) / "dream.lock"
        print(acquire_lock(lock, pid=4242), acquire_lock(lock, pid=4243), lock.read_text(), calls)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False", "4242", "[(1,", "1),", "(1,", "1)]"]


def test_with_fcntl_the_guard_still_flocks(tmp_path: Path) -> None:
    lock = importlib.import_module("app.context.memory.schedule")
    path = tmp_path / "dream.lock"
    assert lock.acquire_lock(path, pid=77) is True
    assert lock.acquire_lock(path, pid=78) is False
    assert path.read_text() == "77"
    assert (tmp_path / "dream.lock.guard").exists()
