"""run_shell_command: exit codes, output, timeouts and cancellation that kill the whole process group."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext, ToolError
from app.core.tools.shell import ShellTool, effective_timeout

shell = ShellTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path, shell_timeout=5.0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state not in ("Z", "X")  # a zombie has already exited; it only awaits reaping


async def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = asyncio.get_running_loop().time() + within
    while _alive(pid):
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_output_and_exit_code(ctx: ToolContext) -> None:
    result = await shell.run({"command": "echo out; echo err >&2; exit 3"}, ctx)
    assert result.output == "out\nerr\nexit code 3"
    assert result.summary == "exit 3"
    assert not result.is_error  # a failing command is information for the model, not a tool failure


async def test_runs_in_the_root_with_empty_stdin(ctx: ToolContext) -> None:
    result = await shell.run({"command": "pwd; cat"}, ctx)
    assert result.output == f"{ctx.root}\nexit code 0"


async def test_no_output_is_said_explicitly(ctx: ToolContext) -> None:
    assert (await shell.run({"command": "true"}, ctx)).output == "(no output)\nexit code 0"


async def test_timeout_kills_the_process_group(ctx: ToolContext) -> None:
    result = await shell.run({"command": "sleep 30 & echo child=$!; wait", "timeout": 0.3}, ctx)
    assert result.is_error
    assert result.summary == "timed out after 0.3 s"
    assert result.output.splitlines()[-1].startswith("timed out after 0.3 s")
    match = re.search(r"child=(\d+)", result.output)
    assert match, result.output  # output produced before the timeout is kept
    assert await _gone(int(match.group(1)))


async def test_cancellation_kills_the_process_group_and_propagates(ctx: ToolContext) -> None:
    pid_file = ctx.root / "pid"
    task = asyncio.create_task(shell.run({"command": f"sleep 30 & echo $! > {pid_file}; wait"}, ctx))
    for _ in range(1000):  # a loaded CI box may take a while to start the shell
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.01)
    pid = int(pid_file.read_text())
    assert _alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _gone(pid)


async def test_background_children_holding_the_output_are_stopped(ctx: ToolContext) -> None:
    result = await shell.run({"command": "sleep 30 & echo child=$!"}, ctx)
    match = re.search(r"child=(\d+)", result.output)
    assert match
    assert "background processes still holding the output were stopped" in result.output
    assert result.output.endswith("exit code 0")
    assert await _gone(int(match.group(1)))


async def test_long_output_keeps_head_and_tail(tmp_path: Path) -> None:
    ctx = ToolContext(root=tmp_path, output_limit=200)
    result = await shell.run({"command": "seq 1 5000"}, ctx)
    assert result.output.startswith("1\n2\n3\n")
    assert "4999\n5000\nexit code 0" in result.output
    omitted = re.search(r"… (\d+) chars omitted …", result.output)
    assert omitted
    full_length = len("\n".join(str(n) for n in range(1, 5001)))
    assert int(omitted.group(1)) == full_length - 200


async def test_read_only_shell_refuses_writes_and_allows_reads(tmp_path: Path) -> None:
    ctx = ToolContext(root=tmp_path, read_only_shell=True)
    (tmp_path / "keep.txt").write_text("data\n")
    with pytest.raises(ToolError, match="refused: only read-only commands.*rm is not on the list"):
        await shell.run({"command": "rm keep.txt"}, ctx)
    with pytest.raises(ToolError, match="redirection > out.txt"):
        await shell.run({"command": "cat keep.txt > out.txt"}, ctx)
    assert (tmp_path / "keep.txt").exists()
    assert not (tmp_path / "out.txt").exists()
    result = await shell.run({"command": "cat keep.txt | wc -l"}, ctx)
    assert result.output.split()[0] == "1"


async def test_bad_arguments(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="'command' must not be empty"):
        await shell.run({"command": "  "}, ctx)
    with pytest.raises(ToolError, match="timeout must be a positive number"):
        await shell.run({"command": "true", "timeout": 0}, ctx)


def test_effective_timeout_is_capped() -> None:
    assert effective_timeout(None, 120) == 120
    assert effective_timeout(3, 120) == 3
    assert effective_timeout(10_000, 120) == 600


def test_summary_subject_and_detail(ctx: ToolContext) -> None:
    assert shell.summarize({"command": "ls -la"}) == "$ ls -la"
    assert shell.summarize({"command": "echo a\necho b"}) == "$ echo a …"
    assert shell.subject({"command": "  git status "}) == "git status"
    assert shell.detail({"command": "make", "description": "build it"}, ctx) == "$ make\n\nbuild it"


async def test_children_that_ignore_sigterm_are_killed(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.tools import shell_runner

    monkeypatch.setattr(shell_runner, "TERM_GRACE_SECONDS", 0.1)
    command = "trap '' TERM; sleep 30 & echo child=$!; wait"
    result = await shell.run({"command": command, "timeout": 0.2}, ctx)
    match = re.search(r"child=(\d+)", result.output)
    assert match and result.is_error
    assert await _gone(int(match.group(1)))
