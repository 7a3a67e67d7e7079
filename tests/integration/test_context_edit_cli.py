"""`agentctx-tui context parts|drop|pin|unpin|restore ID --session ID` on a stored session, as a script runs it
(subprocesses): the edit is a view_edit record and the next `-p --resume` sends the edited view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.context.view_edits import part_id
from app.core.history import Message, ToolCall
from app.core.session.recorder import SessionRecorder
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_headless_cli import cli

SESSION = "cccccccc-3333-4333-8333-333333333333"
LOG = "NOISY-LOG-LINE\n" * 400


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def _record(workspace: Path) -> tuple[Message, Message]:
    rec = SessionRecorder(Paths.for_cwd(workspace).chats_dir, session_id=SESSION, cwd=workspace, version="test")
    rec.append_message(Message.user("what does the log say?"))
    call = ToolCall("c1", "read_file", '{"path": "app.log"}')
    rec.append_message(Message(role="assistant", tool_calls=[call]))
    result = Message.tool_result(call, LOG)
    rec.append_message(result)
    answer = Message(role="assistant", content="Nothing useful.")
    rec.append_message(answer)
    return result, answer


def _edits(workspace: Path) -> list[dict]:
    path = Paths.for_cwd(workspace).chats_dir / f"{SESSION}.jsonl"
    return [r["systemPayload"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if r.get("subtype") == "view_edit"]


def test_parts_lists_every_part_with_its_id(workspace: Path) -> None:
    result, answer = _record(workspace)
    listed = cli(["context", "parts", "--session", SESSION[:8]], cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 4
    assert lines[2].startswith(part_id(result)) and "read_file result" in lines[2] and "6,000 chars" in lines[2]
    assert lines[3].startswith(part_id(answer)) and lines[3].endswith("Nothing useful.")


def test_drop_then_resume_sends_the_placeholder_and_restore_sends_it_again(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    result, _ = _record(workspace)
    pid = part_id(result)
    dropped = cli(["context", "drop", pid, "--session", SESSION], cwd=workspace)
    assert dropped.returncode == 0, dropped.stderr
    assert dropped.stdout.strip() == f"drop: {pid} (dropped) in session {SESSION}"
    assert _edits(workspace) == [{"action": "drop", "part": pid}]
    assert f"{pid}" in cli(["context", "parts", "--session", SESSION], cwd=workspace).stdout.split("[dropped]")[0]

    fake_llm.push(Reply.text("ok"))
    run = cli(["-p", "and now?", "--resume", SESSION], cwd=workspace, server=fake_llm)
    assert run.returncode == 0, run.stderr
    sent = json.dumps(fake_llm.requests[-1].conversation)
    assert "NOISY-LOG-LINE" not in sent and pid in sent

    assert cli(["context", "restore", pid, "--session", SESSION], cwd=workspace).returncode == 0
    fake_llm.push(Reply.text("ok"))
    assert cli(["-p", "again", "--resume", SESSION], cwd=workspace, server=fake_llm).returncode == 0
    assert "NOISY-LOG-LINE" in json.dumps(fake_llm.requests[-1].conversation)


def test_pin_and_unpin_are_recorded(workspace: Path) -> None:
    _, answer = _record(workspace)
    pid = part_id(answer)
    assert cli(["context", "pin", pid, "--session", SESSION], cwd=workspace).returncode == 0
    assert "[pinned]" in cli(["context", "parts", "--session", SESSION], cwd=workspace).stdout
    assert cli(["context", "unpin", pid, "--session", SESSION], cwd=workspace).returncode == 0
    assert _edits(workspace) == [{"action": "pin", "part": pid}, {"action": "unpin", "part": pid}]


def test_an_unknown_part_or_session_is_refused_and_nothing_is_written(workspace: Path) -> None:
    _record(workspace)
    path = Paths.for_cwd(workspace).chats_dir / f"{SESSION}.jsonl"
    before = path.read_bytes()
    wrong = cli(["context", "drop", "tool-deadbeef", "--session", SESSION], cwd=workspace)
    assert wrong.returncode == 2
    assert f"no part tool-deadbeef in session {SESSION}" in wrong.stderr and "context parts --session" in wrong.stderr
    missing = cli(["context", "drop", "--session", SESSION], cwd=workspace)
    assert missing.returncode == 2 and "needs a part id" in missing.stderr
    nosession = cli(["context", "pin", "tool-deadbeef", "--session", "99999999"], cwd=workspace)
    assert nosession.returncode == 2 and "99999999" in nosession.stderr
    assert path.read_bytes() == before


def test_a_range_drops_every_part_between_its_ends(workspace: Path) -> None:
    result, answer = _record(workspace)
    first = part_id(Message.user("what does the log say?"))
    ranged = cli(["context", "drop", f"{part_id(result)}..{first}", "--session", SESSION], cwd=workspace)
    assert ranged.returncode == 0, ranged.stderr
    assert len(_edits(workspace)) == 3, "the request, the call and its result; not the answer after them"
    assert part_id(answer) not in {e["part"] for e in _edits(workspace)}
    bad = cli(["context", "drop", f"{first}..tool-deadbeef", "--session", SESSION], cwd=workspace)
    assert bad.returncode == 2 and f"no part {first}..tool-deadbeef" in bad.stderr
