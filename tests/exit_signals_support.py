"""A real ``agentctx-tui -p`` process to send signals to, and what its session record says afterwards.

The process prints stream-json, so a test waits for what it has seen (the answer's first words, a tool call
started) before it sends the signal: never a fixed sleep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.session.resume import load_session
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
# A stall the test always ends first (by a signal); the server's stop wakes it at teardown.
LONG_STALL_SECONDS = 300.0


def agent_env(server: FakeOpenAIServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="k",
        OPENAI_MODEL="fake-model",
    )
    return env


def wait_for(predicate: Callable[[], object], *, timeout: float = 30.0, what: str = "") -> None:
    """Poll ``predicate``; fail (not hang) when it does not hold in ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"not met within {timeout} s: {what or predicate}")
        time.sleep(0.01)


class HeadlessRun:
    """``python -m app -p PROMPT --output-format stream-json`` in ``repo``; its stdout read as it comes."""

    def __init__(self, server: FakeOpenAIServer, repo: Path, prompt: str, *extra: str) -> None:
        self.repo = repo
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app", "-p", prompt, "--output-format", "stream-json", *extra],
            cwd=repo,
            env=agent_env(server),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: list[dict[str, Any]] = []
        self.stderr = ""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                self.events.append(event)

    def seen(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e.get("type") == kind]

    def text_so_far(self) -> str:
        return "".join(e.get("text", "") for e in self.seen("text_delta"))

    @property
    def session_id(self) -> str:
        wait_for(lambda: self.seen("session"), what="the session line")
        return self.seen("session")[0]["session_id"]

    @property
    def record(self) -> Path:
        return Paths.for_cwd(self.repo).chats_dir / f"{self.session_id}.jsonl"

    def send(self, signum: int) -> None:
        self.process.send_signal(signum)

    def wait(self, timeout: float = 60) -> int:
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the agent did not exit within {timeout} s; stderr so far: {self._stderr()}") from None
        self._reader.join(timeout=10)
        self.stderr = self._stderr()
        return code

    def _stderr(self) -> str:
        assert self.process.stderr is not None
        try:
            return self.process.stderr.read() if self.process.poll() is not None else ""
        except ValueError:
            return ""


def assistant_texts(record: Path) -> list[str]:
    """What the record keeps of the model's answers."""
    return [r.message.content for r in load_session(record).records if r.type == "assistant" and r.message is not None]


def system_subtypes(record: Path) -> list[str]:
    return [r.subtype or "" for r in load_session(record).records if r.type == "system"]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers signal 0: it has exited, its parent has not reaped it yet.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True
