"""Agent processes for the crash and two-process scenarios, and what must hold after one dies.

A ``Driver`` is ``tests/reliability/driver.py`` in a subprocess, talking to the fake
server of the test process. Scenarios wait for a condition (the server received a
request, a file appeared), never for a fixed time, then kill it with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.context.memory import MemoryScope
from app.context.memory.document import parse_memory_text
from app.context.memory.index import rebuild_index
from app.context.memory.schedule import inspect_lock, LockState
from app.context.memory.paths import MemoryPaths
from app.core.session.records import SUBTYPE_CHAT_COMPRESSION
from app.core.session.resume import load_session
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
POLL_SECONDS = 0.005


# The driver builds an interactive runtime from the user's settings file: a title query would race the
# scripted replies for nothing.
QUIET_SESSIONS = "sessions:\n  auto_title: false\n"


def _quiet_user_settings(repo: Path) -> None:
    """Turn the automatic title off in the home the subprocess reads, keeping what the test wrote there."""
    settings_file = Paths.for_cwd(repo).user_settings_file
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    written = settings_file.read_text(encoding="utf-8") if settings_file.exists() else ""
    if "sessions:" not in written:
        settings_file.write_text(written + QUIET_SESSIONS, encoding="utf-8")


def wait_until(predicate: Callable[[], object], timeout: float = 30.0, what: str = "") -> None:
    """Poll ``predicate``; fail (not hang) when it does not hold within ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"not met within {timeout} s: {what or predicate}")
        time.sleep(POLL_SECONDS)


@dataclass
class Driver:
    server: FakeOpenAIServer
    repo: Path
    args: list[str]
    process: subprocess.Popen[str] | None = None
    output: list[dict[str, Any]] = field(default_factory=list)

    def start(self) -> Driver:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        env.update(OPENAI_BASE_URL=self.server.base_url, OPENAI_API_KEY="k", OPENAI_MODEL="fake-model", PYTHONPATH=python_path)
        _quiet_user_settings(self.repo)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.driver", "--cwd", str(self.repo), *self.args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no cleanup, no flush, no finally: the crash being recovered from."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._collect()

    def finish(self, timeout: float = 60) -> list[dict[str, Any]]:
        """Wait for a normal exit and return what it said."""
        assert self.process is not None
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._collect()
        assert self.process.returncode == 0, self.stderr
        return self.output

    def said(self, event: str) -> dict[str, Any] | None:
        return next((line for line in self.output if line.get("event") == event), None)

    def _collect(self) -> None:
        assert self.process is not None and self.process.stdout is not None and self.process.stderr is not None
        self.stdout = self.process.stdout.read()
        self.stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        for line in self.stdout.splitlines():
            try:
                self.output.append(json.loads(line))
            except ValueError:
                continue


def session_files(chats: Path) -> list[Path]:
    return sorted(chats.glob("*.jsonl"))


def check_record(path: Path) -> list[str]:
    """What must hold of a session file after a crash; returns the load warnings.

    It loads; every record's parent is a record of the file; every compaction
    checkpoint's history is readable and its first kept index points inside the
    history it summarized.
    """
    loaded = load_session(path)
    uuids = {r.uuid for r in loaded.records}
    messages_so_far = 0
    for record in loaded.records:
        assert record.parent_uuid is None or record.parent_uuid in uuids, f"{record.uuid} points at a missing parent"
        if record.type == "system" and record.subtype == SUBTYPE_CHAT_COMPRESSION:
            payload = record.system_payload or {}
            assert isinstance(payload.get("compressedHistory"), list) and payload["compressedHistory"]
            first_kept = payload.get("firstKeptIndex")
            assert first_kept is None or 0 <= first_kept <= messages_so_far, (first_kept, messages_so_far)
            messages_so_far = len(payload["compressedHistory"])
        elif record.message is not None:
            messages_so_far += 1
    return loaded.warnings


def check_memory_files(mem: MemoryPaths) -> int:
    """Every memory file is whole (it parses, with a type); returns how many there are."""
    count = 0
    for root in (mem.project_root, mem.user_root):
        for path in root.rglob("*.md") if root.is_dir() else []:
            if path.name == "MEMORY.md" or any(part.startswith(".") for part in path.relative_to(root).parts):
                continue
            parsed = parse_memory_text(path.read_text(encoding="utf-8"))
            assert not parsed.ignored, f"{path} is not a whole memory file: {parsed.problems}"
            count += 1
    return count


def check_indexes_current(mem: MemoryPaths) -> None:
    """Each index already says what a rebuild would write (so nothing is rewritten now)."""
    for scope in (MemoryScope.PROJECT, MemoryScope.USER):
        if mem.root(scope).is_dir():
            assert not rebuild_index(mem, scope).written, f"the {scope.value} index was stale after the restart"


def lock_is_stale(mem: MemoryPaths) -> bool:
    return inspect_lock(mem.lock_file, time.time()).state is LockState.STALE
