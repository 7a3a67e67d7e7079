"""A full disk or a refused data directory is said in words, the turn goes on, and no empty or half-written file is left.

Tests run as root in CI, and root ignores permission bits, so ``chmod`` proves
nothing. Each failure here comes from the kernel itself, whoever asks:

* full disk: the session file is a symlink to ``/dev/full``, where every write
  fails with ENOSPC;
* a write cut part way: a child process with ``RLIMIT_FSIZE`` just above the
  file's size (and SIGXFSZ ignored) gets a short write then EFBIG, exactly as a
  disk that fills in the middle of a line;
* a refused directory: a data directory under ``/sys``, where sysfs refuses to
  create anything, root included (EPERM).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.events import Notice, TurnFinished
from app.core.session.rescue import rescue_dir
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent, run_turn
from tests.reliability.helpers import attach, of_type, recorded_prompts, settings_for, turn

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


async def test_a_full_disk_is_said_the_turn_goes_on_and_the_message_is_kept(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    attach(fake_llm).add("main", Reply.text("Answered anyway."), Reply.text("Saved again."))
    runtime = build_runtime(settings_for(fake_llm.base_url), Paths.for_cwd(repo))
    record = runtime.recorder.path
    record.parent.mkdir(parents=True, exist_ok=True)
    record.symlink_to("/dev/full")
    prompt = "a prompt worth keeping"
    try:
        events = await asyncio.wait_for(turn(runtime, prompt), 20)
        assert isinstance(events[-1], TurnFinished) and events[-1].result == "Answered anyway."
        rescue = rescue_dir() / record.name
        errors = [n.text for n in of_type(events, Notice) if n.level == "error"]
        assert errors == [
            f"No space left on device while saving the session record to {record}; your message is kept in {rescue}. "
            "The session goes on; it is saved again once the disk takes it."
        ], "said once, in words, with both places"
        kept = [json.loads(line) for line in rescue.read_text(encoding="utf-8").splitlines()]
        assert any(r.get("message", {}).get("content") == prompt for r in kept)
        record.unlink()  # room again: the next turn is saved
        events = await asyncio.wait_for(turn(runtime, "and now?"), 20)
        assert isinstance(events[-1], TurnFinished)
        assert recorded_prompts(record) == ["and now?"]
    finally:
        await runtime.aclose()
        (rescue_dir() / record.name).unlink(missing_ok=True)


_CUT_WRITE = r"""
import os, resource, signal, sys
from pathlib import Path
from app.core.history import Message
from app.core.session.recorder import SessionRecorder
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
chats = Path(sys.argv[1])
recorder = SessionRecorder(chats, cwd=chats, version="test")
if sys.argv[2] == "existing":
    recorder.append_message(Message.user("the first message"), durable=True)
size = recorder.path.stat().st_size if recorder.path.exists() else 0
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 40, resource.RLIM_INFINITY))
try:
    recorder.append_message(Message.user("x" * 500), durable=True)
except OSError as exc:
    print(exc)
print(recorder.path)
"""


@pytest.mark.parametrize("case", ["new", "existing"])
def test_a_write_cut_part_way_leaves_no_empty_or_torn_file(tmp_path: Path, case: str) -> None:
    chats = tmp_path / "chats"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    result = subprocess.run([sys.executable, "-c", _CUT_WRITE, str(chats), case], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    said, path = result.stdout.splitlines()
    assert said.startswith("File too large while saving the session record to "), said
    record = Path(path)
    if case == "new":
        assert not record.exists(), "no empty file is left behind"
    else:
        lines = record.read_bytes().split(b"\n")
        assert lines[-1] == b"" and len(lines) == 2, "the file is cut back to its last whole line"
        assert json.loads(lines[0])["message"]["content"] == "the first message"
    # The limit holds for every file of the process, the rescue file too: that is said as well.
    assert said.endswith(", and it could not be kept anywhere else either. The session goes on unsaved.")


def _refused_dir() -> Path | None:
    probe = Path("/sys/agentctx-refused-probe")
    try:
        probe.mkdir()
    except OSError:
        return probe / "chats"
    probe.rmdir()
    return None


async def test_a_data_directory_the_kernel_refuses_is_said_and_the_turn_goes_on(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    chats = _refused_dir()
    if chats is None:
        pytest.skip("no directory here refuses writes from this user")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    agent = make_agent(fake_llm, workspace, chats)
    fake_llm.push(Reply.text("Still here."))
    events = await asyncio.wait_for(run_turn(agent, "hello"), 20)
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "Still here."
    [error] = [n.text for n in of_type(events, Notice) if n.level == "error"]
    assert error.startswith(f"Operation not permitted while saving the session record to {chats}/")
    assert "your message is kept in" in error
    assert not chats.exists()
