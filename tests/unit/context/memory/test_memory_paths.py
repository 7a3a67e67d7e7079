"""Memory locations, the path predicates and the team root check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.context.memory.paths import MemoryScope, MemoryType
from app.context.memory.paths import (
    MAX_SYMLINK_HOPS,
    TeamMemoryRootSecurityError,
    check_team_root,
    is_any_auto_mem_path,
    is_auto_mem_path,
    is_team_auto_mem_path,
    memory_paths,
    realpath_nearest_existing,
)
from app.paths import Paths, sanitize_project_path
from tests.unit.memory_support import make_paths


def _paths(tmp_path: Path) -> Paths:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    return Paths(cwd=repo / "src", config_dir=tmp_path / "config", data_dir=tmp_path / "data")


def test_default_layout(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    memory = memory_paths(paths, env={})
    assert memory.project_root == paths.project_state_dir / "memory"
    assert memory.user_root == tmp_path / "data" / "memories"
    assert memory.team_root == tmp_path / "repo" / ".qwen" / "team-memory"
    assert memory.workspace_root == tmp_path / "repo"
    assert memory.state_dir == paths.project_state_dir
    assert memory.meta_file == paths.project_state_dir / "meta.json"
    assert memory.cursor_file == paths.project_state_dir / "extract-cursor.json"
    assert memory.lock_file == paths.project_state_dir / "consolidation.lock"
    assert memory.chats_dir == paths.chats_dir
    assert memory.index_file(MemoryScope.USER) == memory.user_root / "MEMORY.md"
    assert memory.type_dir("team", MemoryType.FEEDBACK) == memory.team_root / "feedback"


def test_base_dir_and_local_overrides(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    base = tmp_path / "elsewhere"
    moved = memory_paths(paths, env={"QWEN_CODE_MEMORY_BASE_DIR": str(base)})
    assert moved.user_root == base / "memories"
    assert moved.project_root == base / "projects" / sanitize_project_path(tmp_path / "repo") / "memory"
    local = memory_paths(paths, env={"QWEN_CODE_MEMORY_LOCAL": "1"})
    assert local.project_root == tmp_path / "repo" / ".qwen" / "memory"
    assert local.meta_file == tmp_path / "repo" / ".qwen" / "meta.json"


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("/m/root", True),
        ("/m/root/", True),
        ("/m/root/user/a.md", True),
        ("/m/root/../root/user/a.md", True),
        ("/m/root-other/a.md", False),
        ("/m/roo", False),
        ("/m/root/../x.md", False),
        ("/m", False),
        ("/m/root/..hidden.md", False),  # starts with "..": refused, as the rule is written
    ],
)
def test_is_auto_mem_path(path: str, inside: bool) -> None:
    assert is_auto_mem_path("/m/root", path) is inside


def test_any_auto_mem_path_leaves_team_out(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    assert is_any_auto_mem_path(memory, memory.project_root / "user" / "a.md")
    assert is_any_auto_mem_path(memory, memory.user_root / "feedback" / "b.md")
    assert not is_any_auto_mem_path(memory, memory.team_root / "project" / "c.md")
    assert memory.scope_of(memory.team_root / "project" / "c.md") is MemoryScope.TEAM
    assert memory.scope_of(tmp_path / "elsewhere.md") is None


def test_team_path_follows_a_dangling_decoy_symlink(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    memory.team_root.mkdir(parents=True)
    decoy = memory.workspace_root / "decoy.md"
    # Points at a file that does not exist yet: exists() says False, but a write lands in team memory.
    decoy.symlink_to(memory.team_root / "leak.md")
    assert not decoy.exists()
    assert is_team_auto_mem_path(memory.team_root, decoy)


def test_team_path_through_a_dangling_directory_link(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    memory.team_root.mkdir(parents=True)
    link = memory.workspace_root / "notes"
    link.symlink_to(memory.team_root / "project")  # the directory does not exist yet
    assert is_team_auto_mem_path(memory.team_root, link / "new.md")


def test_team_path_plain_cases(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    memory.team_root.mkdir(parents=True)
    assert is_team_auto_mem_path(memory.team_root, memory.team_root / "user" / "new.md")
    assert not is_team_auto_mem_path(memory.team_root, memory.workspace_root / "README.md")
    outside = memory.workspace_root / "out.md"
    outside.symlink_to(tmp_path / "nowhere.md")
    assert not is_team_auto_mem_path(memory.team_root, outside)


def test_symlink_loops_count_as_team_paths(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    memory.team_root.mkdir(parents=True)
    a, b = memory.workspace_root / "a.md", memory.workspace_root / "b.md"
    a.symlink_to(b)
    b.symlink_to(a)
    assert is_team_auto_mem_path(memory.team_root, a)


def test_chain_within_the_hop_limit_is_followed(tmp_path: Path) -> None:
    target = tmp_path / "target.md"
    previous = target
    for index in range(MAX_SYMLINK_HOPS - 1):
        link = tmp_path / f"link{index}.md"
        link.symlink_to(previous)
        previous = link
    assert realpath_nearest_existing(previous) == str(target)


def test_team_root_check(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    check_team_root(memory.workspace_root, memory.team_root)  # absent: fine
    memory.team_root.mkdir(parents=True)
    check_team_root(memory.workspace_root, memory.team_root)


def test_symlinked_team_root_is_refused(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    (memory.workspace_root / ".qwen").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    memory.team_root.symlink_to(elsewhere)
    with pytest.raises(TeamMemoryRootSecurityError, match="symlink"):
        check_team_root(memory.workspace_root, memory.team_root)


def test_team_root_resolving_outside_the_repository_is_refused(tmp_path: Path) -> None:
    memory = make_paths(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "team-memory").mkdir(parents=True)
    os.symlink(elsewhere, memory.workspace_root / ".qwen")  # the parent is the link
    with pytest.raises(TeamMemoryRootSecurityError, match="outside"):
        check_team_root(memory.workspace_root, memory.team_root)
