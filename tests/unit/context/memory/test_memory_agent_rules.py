"""Rules the background memory agents run under: tool permissions, touched topics, memory writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.memory.agents import (
    ScopedDecision,
    memory_agent_decision,
)
from app.context.memory.agents import touched_topics_from_file_paths, written_path
from tests.unit.memory_support import make_paths


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("grep -rn deploy . --include='*.jsonl' | tail -50", ScopedDecision.ALLOW),
        # Reads stay inside the memory directory too: the transcripts elsewhere are not the agent's to read.
        ("grep -rn deploy /tmp/chats --include='*.jsonl' | tail -50", ScopedDecision.DENY),
        ("cat /etc/passwd", ScopedDecision.DENY),
        ("ls -la", ScopedDecision.ALLOW),
        ("rm -rf /", ScopedDecision.DENY),
        ("cat a > b", ScopedDecision.DENY),
        ("", ScopedDecision.DENY),
    ],
)
def test_shell_is_read_only(command: str, decision: ScopedDecision, tmp_path: Path) -> None:
    verdict = memory_agent_decision("run_shell_command", {"command": command}, [tmp_path], cwd=tmp_path)
    assert verdict.decision is decision
    if decision is ScopedDecision.DENY:
        assert verdict.label == "ManagedAutoMemory(run_shell_command: read-only only)"


def test_writes_only_inside_the_given_roots(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    roots = [paths.project_root, paths.user_root]
    inside = memory_agent_decision("write_file", {"file_path": str(paths.user_root / "user" / "a.md")}, roots, cwd=tmp_path)
    assert inside.decision is ScopedDecision.ALLOW
    team = memory_agent_decision("edit", {"file_path": str(paths.team_root / "user" / "a.md")}, roots, cwd=tmp_path)
    assert team.decision is ScopedDecision.DENY
    assert team.label == f"ManagedAutoMemory(edit: only within {paths.project_root} or {paths.user_root})"
    escape = memory_agent_decision("write_file", {"path": str(paths.project_root / ".." / "x.md")}, roots, cwd=tmp_path)
    assert escape.decision is ScopedDecision.DENY
    assert memory_agent_decision("write_file", {}, roots, cwd=tmp_path).decision is ScopedDecision.DENY
    assert memory_agent_decision("read_file", {"file_path": "/etc/passwd"}, roots, cwd=tmp_path).decision is ScopedDecision.DEFAULT


def test_a_symlink_inside_a_root_cannot_carry_a_write_out(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    paths.project_root.mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (paths.project_root / "user").symlink_to(tmp_path / "outside")
    verdict = memory_agent_decision("write_file", {"file_path": str(paths.project_root / "user" / "x.md")}, [paths.project_root], cwd=tmp_path)
    assert verdict.decision is ScopedDecision.DENY


def test_dreaming_keeps_pinned_memories_read_only(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    pinned = paths.project_root / "pinned" / "rule.md"
    verdict = memory_agent_decision("edit", {"file_path": str(pinned)}, [paths.project_root], cwd=tmp_path, protect_pinned=True)
    assert verdict.decision is ScopedDecision.DENY and verdict.reason == "pinned memories are read-only"


def test_touched_topics() -> None:
    roots = ["/x/memory", "C:\\Users\\me\\memories"]
    written = [
        "/x/memory/user/a.md",
        "/x/memory/feedback/b.md",
        "/x/memory/user/c.md",
        "/x/memory-other/project/d.md",  # not under the root
        "/x/memory/notes/e.md",  # not a type
        "C:/Users/me/memories/reference/f.md",  # the other slash
        "/x/memory/MEMORY.md",
    ]
    assert touched_topics_from_file_paths(written, roots) == ["user", "feedback", "reference"]


def test_memory_writes_by_tool_name_and_argument() -> None:
    assert written_path("write_file", {"file_path": "/a"}) == "/a"
    assert written_path("edit", '{"target_file": "/b"}') == "/b"
    assert written_path("read_file", {"file_path": "/a"}) is None
    assert written_path("edit", "not json") is None
    assert written_path("create_file", {"path": "/team/user/x.md"}) == "/team/user/x.md"
