"""No orphan survives the agent: ``kill -9`` of a real headless agent during ``sleep 2 && touch marker``.

The agent is ``agentctx-tui -p`` in a subprocess, in yolo mode, against the fake
server of the test process. Once its shell command has started (it writes its own
pid first), the agent is killed with SIGKILL. Without the death signal bash lives
on as an orphan and touches the marker two seconds later; the job that bash put in
the background (``&``) is not covered by the death signal, only by the watchdog.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.processes import wait_until

ROOT = Path(__file__).resolve().parents[2]
# Longer than the command's own sleep: by then an orphan would have touched the marker.
WATCH_SECONDS = 3.5


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purpose (its parent, the killed agent, is gone too)
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


COMMANDS = {
    "the command itself": "echo $$ > started; sleep 2 && touch marker",
    "a job it put in the background": "(sleep 2 && touch marker) & echo $! > started; wait",
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_killing_the_agent_kills_its_shell_command(fake_llm: FakeOpenAIServer, tmp_path: Path, name: str) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    fake_llm.push(Reply.tool_calls([("s1", "run_shell_command", {"command": COMMANDS[name]})]), Reply.stall(60))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=fake_llm.base_url, OPENAI_API_KEY="k", OPENAI_MODEL="fake-model")
    agent = subprocess.Popen(
        [sys.executable, "-m", "app", "-p", "run it", "--approval-mode", "yolo"],
        cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    started = repo / "started"
    pid = 0
    try:
        wait_until(lambda: started.exists() and started.read_text().strip(), timeout=30, what="the shell command started")
        pid = int(started.read_text())
        agent.send_signal(signal.SIGKILL)
        agent.wait(timeout=10)
        wait_until(lambda: not _alive(pid), timeout=5, what=f"process {pid} of the command died with the agent")
        time.sleep(WATCH_SECONDS)
        assert not (repo / "marker").exists(), "the command went on after the agent died"
    finally:
        if agent.poll() is None:
            agent.kill()
        if pid and _alive(pid):  # the guard failed: do not leave the orphan to the rest of the suite
            os.kill(pid, signal.SIGKILL)
