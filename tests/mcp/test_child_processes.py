"""Every MCP server process dies with the agent: on a normal exit and when the agent is SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_headless_cli import ROOT, cli
from tests.mcp.servers import stdio_entry, write_user_settings
from tests.workspace import Workspace


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state  # a zombie has exited; only its parent's wait is missing


def _wait(predicate, seconds: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


WORKSPACE = Workspace(name="repo", git=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_lingering_server_dies_when_the_agent_is_killed(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    # --linger: this server does not exit when its stdin closes, so only the agent's guard can stop it.
    write_user_settings(hermetic_home, {"mcpServers": {"sticky": stdio_entry("--linger", "--pid-file", str(pid_file))}})
    fake_llm.push(Reply.stall(60))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=fake_llm.base_url, OPENAI_API_KEY="k", OPENAI_MODEL="fake-model")
    agent = subprocess.Popen([sys.executable, "-m", "app", "-p", "wait"], cwd=workspace, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _wait(lambda: pid_file.exists() and bool(fake_llm.requests), 60), "the server or the turn never started"
        server_pid = int(pid_file.read_text())
        assert _alive(server_pid)
        agent.send_signal(signal.SIGKILL)
        agent.wait(10)
        assert _wait(lambda: not _alive(server_pid)), f"MCP server {server_pid} outlived the killed agent"
    finally:
        if agent.poll() is None:
            agent.kill()
        if pid_file.exists() and _alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_a_lingering_server_is_stopped_when_the_agent_exits(fake_llm: FakeOpenAIServer, workspace: Path, hermetic_home: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    write_user_settings(hermetic_home, {"mcpServers": {"sticky": stdio_entry("--linger", "--pid-file", str(pid_file))}})
    fake_llm.push(Reply.text("bye"))
    result = cli(["-p", "hi"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    server_pid = int(pid_file.read_text())
    try:
        assert _wait(lambda: not _alive(server_pid)), f"MCP server {server_pid} outlived the agent's exit"
    finally:
        if _alive(server_pid):
            os.kill(server_pid, signal.SIGKILL)
