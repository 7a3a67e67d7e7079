"""The sandbox for commands that run unasked, against real processes: each attack tried, its effect absent.

A parser miss is simulated by making the read-only check pass everything (the classifier is what an
attacker beats); what must then hold is the OS layer. Every test that needs Landlock skips where the
kernel has none, and the no-sandbox path is tested everywhere with the status forced unavailable.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from app.core.tools import sandbox
from app.core.tools.base import ToolContext
from app.core.tools.errors import ToolError
from app.core.tools.shell import ShellTool
from app.core.tools.shell_env import command_environment, is_secret_name

landlock = pytest.mark.skipif(not sandbox.sandbox_status().available, reason=f"no Landlock here: {sandbox.sandbox_status().reason}")
FAKE_KEY = "sk-test-" + "k" * 20


@pytest.fixture
def parser_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command passes the read-only check, as one the analysis got wrong would."""
    monkeypatch.setattr("app.core.tools.shell_readonly.read_only_refusal", lambda *a, **k: None)


async def _run(root: Path, command: str, mode: str = "auto", read_only: bool = True) -> str:
    ctx = ToolContext(root=root, read_only_shell=read_only, sandbox=mode, shell_timeout=20)
    return (await ShellTool().run({"command": command}, ctx)).output


@landlock
async def test_a_parser_miss_cannot_write_in_the_project_or_outside_it(tmp_path: Path, parser_miss: None) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    output = await _run(project, f"echo pwned > planted.txt; echo pwned > {outside}/planted.txt; rm -rf {project}/*; echo done")
    assert not (project / "planted.txt").exists() and not (outside / "planted.txt").exists()
    assert "Permission denied" in output and "done" in output, "the program answered"


@landlock
async def test_the_same_command_writes_with_the_sandbox_off(tmp_path: Path, parser_miss: None) -> None:
    await _run(tmp_path, "echo pwned > planted.txt", mode="off")
    assert (tmp_path / "planted.txt").exists(), "the guard is what stopped it above"


@landlock
async def test_a_parser_miss_cannot_reach_the_network(tmp_path: Path, parser_miss: None) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(5)
    accepted: list[object] = []

    def accept() -> None:
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    waiter = threading.Thread(target=accept)
    waiter.start()
    port = server.getsockname()[1]
    output = await _run(tmp_path, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; echo after")
    server.close()
    waiter.join()
    assert not accepted and "connected" not in output and "after" in output


@landlock
async def test_a_parser_miss_cannot_signal_the_agent(tmp_path: Path, parser_miss: None) -> None:
    if sandbox.sandbox_status().abi < 6:
        pytest.skip("signal scoping needs Landlock ABI 6")
    output = await _run(tmp_path, f"kill -0 {os.getpid()} && echo reached; echo after")
    assert "reached" not in output and "after" in output


@landlock
async def test_a_sandboxed_command_still_reads_and_gets_a_private_temp_dir(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello from the project\n")
    assert "hello from the project" in await _run(tmp_path, "cat notes.txt")


async def test_without_a_sandbox_nothing_runs_unasked(tmp_path: Path, parser_miss: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "sandbox_status", lambda: sandbox.SandboxStatus(False, reason="forced off for the test"))
    with pytest.raises(ToolError, match="without the user's approval.*forced off for the test"):
        await _run(tmp_path, "echo pwned > planted.txt")
    assert not (tmp_path / "planted.txt").exists()


async def test_an_approved_command_is_not_sandboxed(tmp_path: Path) -> None:
    await _run(tmp_path, "echo mine > written.txt", read_only=False)
    assert (tmp_path / "written.txt").read_text() == "mine\n"


async def test_no_command_sees_the_models_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_KEY)
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    output = await _run(tmp_path, "env", read_only=False)
    assert FAKE_KEY not in output and "PLAIN_SETTING=kept" in output


@pytest.mark.parametrize(
    ("name", "secret"),
    [("OPENAI_API_KEY", True), ("OPENAI_BASE_URL", True), ("GITHUB_TOKEN", True), ("AWS_SECRET_ACCESS_KEY", True),
     ("NPM_TOKEN", True), ("DB_PASSWORD", True), ("ANTHROPIC_API_KEY", True), ("MY_API_KEY", True),
     ("PATH", False), ("HOME", False), ("KEYMAP", False), ("TOKENIZERS_PARALLELISM", False), ("LANG", False)],
)
def test_which_names_hold_credentials(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_an_unasked_command_also_loses_the_ssh_agent() -> None:
    base = {"SSH_AUTH_SOCK": "/tmp/agent.sock", "PATH": "/bin"}
    assert command_environment(base) == base
    assert command_environment(base, unasked=True) == {"PATH": "/bin"}


def test_the_status_says_why_there_is_none() -> None:
    status = sandbox.SandboxStatus(False, reason="no Landlock: the kernel is older than 5.13")
    assert "the kernel is older than 5.13" in status.describe() and "ask first" in status.describe()
