"""Rewind through whole turns against the local server: the record, the next request, and the undo of real edits."""

from __future__ import annotations

from pathlib import Path

from app.core.session.resume import load_session
from app.core.session.rewind import rewind_points
from app.core.session.rewind_undo import apply_undo, plan_undo
from app.core.tools.permissions import ApprovalMode
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent, run_turn


async def test_the_request_after_a_rewind_holds_only_the_branch(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("print('hi')\n")
    agent = make_agent(fake_llm, workspace, tmp_path / "chats", mode=ApprovalMode.AUTO_EDIT)
    fake_llm.push(Reply.text("It prints hi."))
    await run_turn(agent, "what does app.py do?")
    fake_llm.push(
        Reply.tool_calls([("e1", "edit", {"path": "app.py", "old_string": "hi", "new_string": "bye"})]),
        Reply.text("Changed it to bye."),
    )
    await run_turn(agent, "make it say bye")
    assert (workspace / "app.py").read_text() == "print('bye')\n"

    path = agent.recorder.path  # type: ignore[union-attr]
    loaded = load_session(path)
    point = rewind_points(agent.history, loaded)[0]
    assert point.text == "make it say bye"
    agent.rewind(point.index, point.payload())
    plan = plan_undo(loaded.records, point.uuid or "", workspace)
    assert [r.shown for r in plan.restores] == ["app.py"]
    apply_undo(plan, workspace)
    assert (workspace / "app.py").read_text() == "print('hi')\n"

    fake_llm.push(Reply.text("Changed it to goodbye."))
    await run_turn(agent, "make it say goodbye")
    sent = fake_llm.requests[-1].messages
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "user"]
    assert [m["content"] for m in sent[1:]] == ["what does app.py do?", "It prints hi.", "make it say goodbye"]
    # Resuming rebuilds the same branch from the record, which still holds the rewound turn.
    resumed = load_session(path)
    assert [m.content for m in resumed.messages] == ["what does app.py do?", "It prints hi.", "make it say goodbye", "Changed it to goodbye."]
    assert any(r.message and r.message.content == "make it say bye" for r in resumed.records)


async def test_the_agent_records_what_an_edit_replaced_before_its_result(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("old\n")
    agent = make_agent(fake_llm, workspace, tmp_path / "chats", mode=ApprovalMode.AUTO_EDIT)
    fake_llm.push(
        Reply.tool_calls([("w1", "write_file", {"path": "a.txt", "content": "new\n"}), ("w2", "edit", {"path": "missing.txt", "old_string": "a", "new_string": "b"})]),
        Reply.text("Done."),
    )
    await run_turn(agent, "rewrite a.txt")
    records = load_session(agent.recorder.path).records  # type: ignore[union-attr]
    kinds = [(r.type, r.subtype) for r in records]
    changes = [r.system_payload for r in records if r.subtype == "file_change"]
    assert len(changes) == 1, "a failed edit changed nothing and records nothing"
    assert changes[0]["toolCallId"] == "w1" and changes[0]["beforeText"] == "old\n" and changes[0]["existed"] is True
    index = kinds.index(("system", "file_change"))
    assert kinds[index + 1] == ("tool_result", None)
