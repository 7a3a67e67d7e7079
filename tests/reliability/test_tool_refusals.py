"""Tools refuse what they cannot do, in words, and the turn goes on (through a real runtime and the real tools).

Without the regular-file check ``read_file`` on a FIFO blocks the turn forever (the
scenario's ``wait_for`` fails it); without the argument check a NUL byte in a path
aborted the whole turn through the memory guard's ``os.readlink``; without the
symlink rule a write through ``CLAUDE.md -> AGENTS.md`` replaced the link.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path

import pytest

from app.core.events import ToolCallFinished, TurnFinished
from app.core.protocols import ToolGuard
from app.core.tools.permissions import ApprovalMode
from app.paths import Paths
from app.runtime import Runtime, build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.helpers import make_agent, run_turn
from tests.reliability.helpers import attach, of_type, settings_for, turn

HANG = 20.0


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _runtime(base_url: str, repo: Path) -> Runtime:
    settings = settings_for(base_url)
    settings.approval_mode = "yolo"  # nothing waits for an approval: the refusal must come from the tool itself
    return build_runtime(settings, Paths.for_cwd(repo))


async def _tool_turn(fake_llm: FakeOpenAIServer, runtime: Runtime, name: str, args: dict) -> ToolCallFinished:
    # As JSON text with \u escapes: a lone surrogate travels the way a model's JSON carries it.
    attach(fake_llm).add("main", Reply.tool_calls([("c1", name, json.dumps(args))]), Reply.text("Understood."))
    events = await asyncio.wait_for(turn(runtime, f"use {name}"), HANG)
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "Understood.", events[-1]
    [finished] = of_type(events, ToolCallFinished)
    assert finished.status == "error"
    return finished


SPECIAL = {
    "read_file": {"path": "special"},
    "edit": {"path": "special", "old_string": "a", "new_string": "b"},
    "write_file": {"path": "special", "content": "x"},
}


@pytest.mark.parametrize("tool", list(SPECIAL))
@pytest.mark.parametrize("kind", ["fifo", "socket"])
async def test_fifos_and_sockets_are_refused_before_they_are_opened(fake_llm: FakeOpenAIServer, repo: Path, tool: str, kind: str) -> None:
    special = repo / "special"
    holder = None
    if kind == "fifo":
        os.mkfifo(special)
    else:
        holder = socket.socket(socket.AF_UNIX)
        holder.bind(str(special))
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        finished = await _tool_turn(fake_llm, runtime, tool, SPECIAL[tool])
        words = "a FIFO (named pipe)" if kind == "fifo" else "a socket"
        assert f"special is {words}, not a regular file" in finished.output
        assert not special.is_file() and special.exists(), "the special file is left as it was"
    finally:
        await runtime.aclose()
        if holder is not None:
            holder.close()


BAD_PATHS = {"a NUL byte": "notes\x00.md", "a lone surrogate": "notes\ud800.md"}


@pytest.mark.parametrize("tool", ["write_file", "edit", "read_file", "list_directory", "grep_search"])
@pytest.mark.parametrize("bad", list(BAD_PATHS))
async def test_invalid_path_characters_are_a_refusal_not_an_abort(fake_llm: FakeOpenAIServer, repo: Path, tool: str, bad: str) -> None:
    args = {"write_file": {"content": "x"}, "edit": {"old_string": "a", "new_string": "b"}, "grep_search": {"pattern": "x"}}.get(tool, {})
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        finished = await _tool_turn(fake_llm, runtime, tool, {"path": BAD_PATHS[bad], **args})
        assert finished.output.startswith("Error: the argument 'path' contains ")
        assert sorted(p.name for p in repo.iterdir()) == [".git"], "nothing was written"
    finally:
        await runtime.aclose()


@pytest.mark.parametrize("tool", ["write_file", "edit"])
async def test_writing_through_a_symlink_inside_the_project_keeps_the_link(fake_llm: FakeOpenAIServer, repo: Path, tool: str) -> None:
    (repo / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    args = {"path": "CLAUDE.md", "content": "Use spaces.\n"} if tool == "write_file" else {"path": "CLAUDE.md", "old_string": "tabs", "new_string": "spaces"}
    attach(fake_llm).add("main", Reply.tool_calls([("c1", tool, args)]), Reply.text("Done."))
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        events = await asyncio.wait_for(turn(runtime, "switch to spaces"), HANG)
        [finished] = of_type(events, ToolCallFinished)
        assert finished.status == "ok", finished.output
        assert (repo / "CLAUDE.md").is_symlink() and os.readlink(repo / "CLAUDE.md") == "AGENTS.md"
        assert (repo / "AGENTS.md").read_text(encoding="utf-8") == "Use spaces.\n"
    finally:
        await runtime.aclose()


async def test_a_symlink_to_outside_the_project_is_still_refused(fake_llm: FakeOpenAIServer, repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("keep\n", encoding="utf-8")
    (repo / "LINK.md").symlink_to(outside)
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        finished = await _tool_turn(fake_llm, runtime, "write_file", {"path": "LINK.md", "content": "overwritten\n"})
        assert "outside the workspace" in finished.output
        assert outside.read_text(encoding="utf-8") == "keep\n"
    finally:
        await runtime.aclose()


async def test_a_failing_tool_guard_is_a_tool_result_and_the_turn_goes_on(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    def broken_guard(call, tool, args):  # type: ignore[no-untyped-def]
        raise ValueError("embedded null byte")

    agent = make_agent(fake_llm, workspace, tmp_path / "chats", mode=ApprovalMode.YOLO, observers=[ToolGuard(broken_guard)])
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "x"})]), Reply.text("Carrying on."))
    events = await asyncio.wait_for(run_turn(agent, "read x"), HANG)
    assert isinstance(events[-1], TurnFinished) and events[-1].result == "Carrying on."
    [finished] = of_type(events, ToolCallFinished)
    assert finished.status == "error" and "ValueError: embedded null byte" in finished.output
    sent = fake_llm.requests[1].messages[-1]
    assert sent["role"] == "tool" and "could not be checked or run" in sent["content"], "the model sees the failure"


async def test_a_search_passes_over_a_fifo_and_finds_the_rest(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    os.mkfifo(repo / "pipe")
    (repo / "notes.md").write_text("the needle is here\n", encoding="utf-8")
    attach(fake_llm).add("main", Reply.tool_calls([("c1", "grep_search", {"pattern": "needle"})]), Reply.text("Found."))
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        events = await asyncio.wait_for(turn(runtime, "find the needle"), HANG)
        [finished] = of_type(events, ToolCallFinished)
        assert finished.status == "ok" and "notes.md" in finished.output
    finally:
        await runtime.aclose()
