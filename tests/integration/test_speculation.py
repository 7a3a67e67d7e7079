"""Suggestions and speculative turns against the scripted server: accepted, aborted, conflicting, crashing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.core.history import Message
from app.core.overlay import OverlayConflict
from app.core.protocols import ToolGuard, TurnObserver
from app.core.speculation import Speculation, suggest_next
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent
from tests.workspace import Workspace

WORKSPACE = Workspace(files={"app.py": "def greet():\n    return 'helo'\n"})


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def _agent(server: FakeOpenAIServer, workspace: Path, tmp_path: Path, **options):  # type: ignore[no-untyped-def]
    agent = make_agent(server, workspace, tmp_path / "chats", **options)
    agent.history += [Message.user("what does app.py do?"), Message(role="assistant", content="It greets, but 'helo' is misspelled.")]
    return agent


EDIT = {"path": "app.py", "old_string": "'helo'", "new_string": "'hello'"}


async def test_suggestion_is_one_short_line_or_none(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    fake_llm.push(Reply.text("fix the typo in greet"), Reply.text("NONE"))
    assert await suggest_next(agent.provider, agent.history) == "fix the typo in greet"
    assert "likely ask" in fake_llm.requests[0].messages[0]["content"] or "predict" in fake_llm.requests[0].messages[0]["content"]
    assert await suggest_next(agent.provider, agent.history) is None


async def test_accepted_speculation_applies_its_edits_and_returns_the_turn(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    before = _digest(workspace)
    fake_llm.push(Reply.tool_calls([("e1", "edit", EDIT)]), Reply.text("Fixed the typo."))
    speculation = Speculation.start(agent, "fix the typo")
    await speculation.wait()
    assert speculation.status == "ready"
    assert _digest(workspace) == before, "nothing real before acceptance"
    [change] = speculation.changes()
    assert change.path.name == "app.py" and (change.added, change.removed) == (1, 1)
    messages = speculation.accept()
    assert (workspace / "app.py").read_text() == "def greet():\n    return 'hello'\n"
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[0].content == "fix the typo" and not speculation.overlay.shadow.exists()
    assert len(agent.history) == 2, "the main history is the caller's to extend"


async def test_aborted_speculation_leaves_the_workspace_byte_identical(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    before = _digest(workspace)
    fake_llm.push(Reply.tool_calls([("e1", "edit", EDIT)]), Reply.stall(30, after=["working"]))
    speculation = Speculation.start(agent, "fix the typo")
    await fake_llm_wait(fake_llm, 2)
    speculation.abort()
    await speculation.wait()
    assert speculation.status == "cancelled"
    assert _digest(workspace) == before and not speculation.overlay.shadow.exists()


async def fake_llm_wait(server: FakeOpenAIServer, n: int) -> None:
    import asyncio

    await asyncio.to_thread(server.wait_for_requests, n)


async def test_a_file_changed_meanwhile_refuses_the_apply(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    fake_llm.push(Reply.tool_calls([("e1", "edit", EDIT)]), Reply.text("Fixed."))
    speculation = Speculation.start(agent, "fix the typo")
    await speculation.wait()
    (workspace / "app.py").write_text("# rewritten by hand\n")
    with pytest.raises(OverlayConflict):
        speculation.accept()
    assert (workspace / "app.py").read_text() == "# rewritten by hand\n"
    assert speculation.status == "cancelled" and not speculation.overlay.shadow.exists()


async def test_the_speculative_shell_is_read_only_and_writes_outside_are_refused(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    outside = tmp_path / "outside.txt"
    fake_llm.push(
        Reply.tool_calls([("s1", "run_shell_command", {"command": "touch made-by-shell"}), ("w1", "write_file", {"path": str(outside), "content": "x"})]),
        Reply.text("Tried."),
    )
    speculation = Speculation.start(agent, "do risky things")
    await speculation.wait()
    assert not (workspace / "made-by-shell").exists() and not outside.exists()
    outputs = {e.call.id: e.output for e in speculation.events if e.kind == "tool_call_finished"}
    assert "read-only" in outputs["s1"].lower() or "refus" in outputs["s1"].lower()
    assert "outside the workspace" in outputs["w1"]
    speculation.abort()
    assert not speculation.overlay.shadow.exists()


async def test_a_failing_speculation_is_reported_not_applied(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    fake_llm.push(Reply.error(500))
    speculation = Speculation.start(agent, "fix the typo")
    await speculation.wait()
    assert speculation.status == "failed" and "server error" in speculation.error
    assert not speculation.overlay.shadow.exists(), "nothing of a failed run is kept"
    with pytest.raises(RuntimeError):
        speculation.accept()


async def test_a_runaway_speculation_stops_at_twenty_requests(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = _agent(fake_llm, workspace, tmp_path)
    for i in range(30):
        fake_llm.push(Reply.tool_calls([(f"r{i}", "read_file", {"path": "app.py"})]))
    speculation = Speculation.start(agent, "keep reading")
    await speculation.wait()
    assert len(fake_llm.requests) == 20
    assert speculation.status == "failed" and "Stopped after 20 model requests" in speculation.error
    assert (workspace / "app.py").read_text() == "def greet():\n    return 'helo'\n"


async def test_a_deny_rule_holds_in_a_speculation_and_its_write_never_lands(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    agent = make_agent(fake_llm, workspace, tmp_path / "chats", deny=["edit"])
    fake_llm.push(Reply.tool_calls([("e1", "edit", EDIT)]), Reply.text("I could not edit it."))
    speculation = Speculation.start(agent, "fix the typo")
    await speculation.wait()
    [finished] = [e for e in speculation.events if e.kind == "tool_call_finished"]
    assert finished.status == "rejected" and "Permission denied" in finished.output
    assert speculation.changes() == []
    speculation.accept()
    assert (workspace / "app.py").read_text() == "def greet():\n    return 'helo'\n"


async def test_tool_guards_and_pre_tool_use_hooks_hold_in_a_speculation(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    class DenyingHooks:
        calls: list[str] = []

        async def before_tool(self, call, args):  # type: ignore[no-untyped-def]
            from app.hooks.bridge import ToolVerdict

            self.calls.append(call.name)
            return ToolVerdict("deny", "no writes today")

        async def after_tool(self, *args) -> None:  # type: ignore[no-untyped-def]
            raise AssertionError("PostToolUse must not run for a speculation")

        def take_notices(self) -> list[str]:
            return []

        def take_reminders(self) -> list[str]:
            raise AssertionError("a speculation's hook output must not reach the real conversation")

    guard = ToolGuard(lambda call, tool, args: "team memory refuses secrets" if args.get("path") == "app.py" else None)
    agent = _agent(fake_llm, workspace, tmp_path, observers=[guard], hooks=DenyingHooks())
    write = {"path": "notes.md", "content": "x\n"}
    fake_llm.push(Reply.tool_calls([("e1", "edit", EDIT), ("w1", "write_file", write)]), Reply.text("Both refused."))
    speculation = Speculation.start(agent, "fix the typo and take notes")
    await speculation.wait()
    statuses = {e.call.name: (e.status, e.output) for e in speculation.events if e.kind == "tool_call_finished"}
    assert statuses["edit"] == ("rejected", "team memory refuses secrets")
    assert statuses["write_file"][0] == "rejected" and "no writes today" in statuses["write_file"][1]
    assert DenyingHooks.calls == ["write_file"] and speculation.changes() == []


async def test_an_accepted_turn_is_seen_like_a_sent_one_by_everything_that_watches_turns(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    import json as _json

    from app.core.history import Usage

    seen: list[str] = []

    class Watcher(TurnObserver):
        def on_turn_start(self, prompt, history):  # type: ignore[no-untyped-def]
            seen.append(f"before {prompt} {history[-1].content}")

        def on_tool_ran(self, call, args):  # type: ignore[no-untyped-def]
            seen.append(f"tool {call.name} {args['path']}")

        def on_turn_end(self, history, finished):  # type: ignore[no-untyped-def]
            seen.append(f"after {finished}")

    agent = _agent(fake_llm, workspace, tmp_path, observers=[Watcher()])
    fake_llm.push(Reply.tool_calls([("e1", "edit", EDIT)], usage=(900, 10)), Reply.text("Fixed the typo.", usage=(1000, 5)))
    speculation = Speculation.start(agent, "fix the typo")
    await speculation.wait()
    agent.adopt_turn(speculation.accept(), speculation.usage)
    assert seen == ["before fix the typo fix the typo", "tool edit app.py", "after True"]
    assert agent.last_usage == Usage(prompt_tokens=1000, completion_tokens=5, total_tokens=1005)
    records = [_json.loads(line) for line in agent.recorder.path.read_text(encoding="utf-8").splitlines()]
    answers = [r for r in records if r.get("type") == "assistant"]
    assert answers[-1]["usageMetadata"]["prompt_tokens"] == 1000 and answers[-1]["model"] == "fake-model"
    assert [r["type"] for r in records if r.get("type") in ("user", "assistant", "tool_result")][-4:] == ["user", "assistant", "tool_result", "assistant"]


@pytest.mark.skipif(
    not __import__("app.core.tools.sandbox", fromlist=["sandbox_status"]).sandbox_status().available, reason="no Landlock here"
)
async def test_a_parser_miss_in_speculation_is_contained_by_the_sandbox(
    fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Zero-click: the prepared follow-up runs before the user accepts anything. Were the read-only check
    # wrong about a command, the OS sandbox still keeps it off the real disk.
    monkeypatch.setattr("app.core.tools.shell_readonly.read_only_refusal", lambda *a, **k: None)
    agent = _agent(fake_llm, workspace, tmp_path)
    outside = tmp_path / "planted-outside"
    fake_llm.push(Reply.tool_calls([("s1", "run_shell_command", {"command": f"touch made-by-shell {outside}"})]), Reply.text("Tried."))
    speculation = Speculation.start(agent, "do risky things")
    await speculation.wait()
    assert not (workspace / "made-by-shell").exists() and not outside.exists()
    outputs = {e.call.id: e.output for e in speculation.events if e.kind == "tool_call_finished"}
    assert "Permission denied" in outputs["s1"]
    speculation.abort()
