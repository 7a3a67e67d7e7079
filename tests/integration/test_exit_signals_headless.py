"""SIGTERM and SIGHUP to a real ``-p`` process end the turn the way Ctrl+C does.

The attack is what ``timeout``, ``docker stop``, a CI runner or a closing terminal does to a running turn;
without the handlers (``app/exit_signals.py``, ``app/cli/headless.py``) the process dies where it stands:
the answer streamed so far is not in the record, and the exit status is a death by signal, not 143 / 129.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.exit_signals_support import LONG_STALL_SECONDS, HeadlessRun, alive, assistant_texts, system_subtypes, wait_for
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.workspace import Workspace

WORKSPACE = Workspace(name="repo", git=True, files={"README.md": "# Project\n"})


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_mid_answer_keeps_the_partial_answer(fake_llm: FakeOpenAIServer, workspace: Path, signum: int, code: int) -> None:
    fake_llm.push(Reply.stall(LONG_STALL_SECONDS, after=["The partial ", "answer so far"]))
    run = HeadlessRun(fake_llm, workspace, "explain the project")
    wait_for(lambda: run.text_so_far() == "The partial answer so far", what="the first words on stdout")
    run.send(signum)
    assert run.wait() == code, run.stderr
    assert f"stopped by {signal.Signals(signum).name}" in run.stderr
    assert run.session_id in run.stderr  # where the partial answer is, and how to go on
    assert run.seen("turn_cancelled"), "the turn ended as cancelled, and said so"
    assert assistant_texts(run.record) == ["The partial answer so far"]
    assert system_subtypes(run.record)[-1] == "turn_cancelled"


def test_sigterm_during_a_shell_command_ends_the_command(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    pid_file = workspace / "sleeper.pid"
    command = f"echo $$ > {pid_file}; exec sleep 1000"
    fake_llm.push(Reply.tool_calls([("c1", "run_shell_command", {"command": command})], text="Running it."))
    run = HeadlessRun(fake_llm, workspace, "run the sleeper", "--approval-mode", "yolo")
    wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), what="the shell command started")
    sleeper = int(pid_file.read_text())
    assert alive(sleeper)
    run.send(signal.SIGTERM)
    assert run.wait() == 143, run.stderr
    wait_for(lambda: not alive(sleeper), timeout=10, what=f"the shell command (pid {sleeper}) ended")
    assert assistant_texts(run.record)[0] == "Running it."
    subtypes = system_subtypes(run.record)
    assert subtypes[-1] == "turn_cancelled", subtypes
    assert len(fake_llm.requests) == 1, "nothing was sent after the signal"


def test_sigterm_before_the_answer_starts_exits_143(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.stall(LONG_STALL_SECONDS))
    run = HeadlessRun(fake_llm, workspace, "hello")
    fake_llm.wait_for_requests(1, timeout=30)
    run.send(signal.SIGTERM)
    assert run.wait() == 143, run.stderr
    assert system_subtypes(run.record)[-1] == "turn_cancelled"
    assert assistant_texts(run.record) == []
