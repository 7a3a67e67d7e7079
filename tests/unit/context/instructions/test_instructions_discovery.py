"""Instruction file discovery (Qwen Code §2): order, stop rules, the local slot, names, odd files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.context.instructions import discovery as discovery_module
from app.context.instructions.discovery import discover, discover_instruction_files
from app.context.instructions.display import display_path, strip_control, ui_path
from app.context.instructions.memory_types import MemoryType
from app.context.instructions.names import (
    AGENT_CONTEXT_FILENAME,
    DEFAULT_CONTEXT_FILENAME,
    DEFAULT_CONTEXT_FILENAMES,
    LOCAL_CONTEXT_FILENAME,
    MEMORY_SECTION_HEADER,
    context_filenames,
    current_context_filename,
)


def write(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class World:
    """tmp/base/home/outer/root (a git repo) with root/sub as cwd; the global dir sits outside home."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.base = tmp / "base"
        self.home = self.base / "home"
        self.global_dir = tmp / "agentctx" / "config"
        self.outer = self.home / "outer"
        self.root = self.outer / "root"
        self.sub = self.root / "sub"
        for d in (self.global_dir, self.sub):
            d.mkdir(parents=True)

    def git(self, *, as_file: bool = False) -> None:
        if as_file:
            write(self.root / ".git", "gitdir: /elsewhere/.git/worktrees/root\n")
        else:
            (self.root / ".git").mkdir()

    def paths(self, cwd: Path | None = None, **kwargs: object) -> list[Path]:
        found = discover_instruction_files(cwd or self.sub, global_dir=self.global_dir, home=self.home, **kwargs)  # type: ignore[arg-type]
        return [f.path for f in found]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_constants_match_qwen_code() -> None:
    assert DEFAULT_CONTEXT_FILENAME == "QWEN.md"
    assert AGENT_CONTEXT_FILENAME == "AGENTS.md"
    assert LOCAL_CONTEXT_FILENAME == "QWEN.local.md"
    assert MEMORY_SECTION_HEADER == "## Qwen Added Memories"
    assert DEFAULT_CONTEXT_FILENAMES == ("QWEN.md", "AGENTS.md")


def test_full_example_order(world: World) -> None:
    world.git()
    expected = [
        write(world.global_dir / "QWEN.md"),
        write(world.outer / "QWEN.md"),
        write(world.root / "QWEN.md"),
        write(world.sub / "QWEN.md"),
        write(world.global_dir / "AGENTS.md"),
        write(world.root / "AGENTS.md"),
        write(world.root / ".qwen" / "QWEN.local.md"),
    ]
    assert world.paths() == expected


def test_the_scan_stops_one_level_above_the_project_root(world: World) -> None:
    world.git()
    write(world.home / "QWEN.md")  # two levels above the root: out of reach
    write(world.base / "QWEN.md")
    outer = write(world.outer / "QWEN.md")
    assert world.paths() == [outer]


def test_a_git_file_marks_the_project_root_like_a_git_dir(world: World) -> None:
    world.git(as_file=True)
    write(world.home / "QWEN.md")
    root_file = write(world.root / "QWEN.md")
    local = write(world.root / ".qwen" / "QWEN.local.md")
    assert world.paths() == [root_file, local]


def test_without_a_project_root_the_scan_stops_after_the_parent_of_home(world: World) -> None:
    above = write(world.tmp / "QWEN.md")  # parent of the parent of home: never reached
    parent_of_home = write(world.base / "QWEN.md")
    in_home = write(world.home / "QWEN.md")
    in_root = write(world.root / "QWEN.md")
    assert above not in world.paths()
    assert world.paths() == [parent_of_home, in_home, in_root]


def test_no_local_slot_without_a_git_root(world: World) -> None:
    write(world.root / ".qwen" / "QWEN.local.md")
    write(world.sub / ".qwen" / "QWEN.local.md")
    assert world.paths() == []


def test_a_cwd_anchored_local_file_is_never_loaded(world: World) -> None:
    world.git()
    write(world.sub / ".qwen" / "QWEN.local.md")  # cwd is a subdirectory of the root
    assert world.paths() == []
    root_local = write(world.root / ".qwen" / "QWEN.local.md")
    assert world.paths() == [root_local]


def test_local_slot_is_last_and_needs_trust(world: World) -> None:
    world.git()
    local = write(world.root / ".qwen" / "QWEN.local.md")
    agents = write(world.root / "AGENTS.md")
    assert world.paths() == [agents, local]
    assert world.paths(trusted=False) == []


def test_cwd_equal_to_home_reads_only_home_files(world: World) -> None:
    write(world.base / "QWEN.md")  # would be reached by an upward scan
    write(world.home / ".qwen" / "QWEN.local.md")
    home_file = write(world.home / "QWEN.md")
    global_file = write(world.global_dir / "AGENTS.md")
    assert world.paths(cwd=world.home) == [home_file, global_file]


def test_cwd_equal_to_home_does_not_need_trust(world: World) -> None:
    home_file = write(world.home / "QWEN.md")
    assert world.paths(cwd=world.home, trusted=False) == [home_file]


def test_home_file_equal_to_the_global_file_is_listed_once(world: World) -> None:
    only = write(world.home / "QWEN.md")
    found = discover_instruction_files(world.home, global_dir=world.home, home=world.home)
    assert [f.path for f in found] == [only]


def test_home_with_git_gets_the_local_slot(world: World) -> None:
    (world.home / ".git").mkdir(parents=True)
    local = write(world.home / ".qwen" / "QWEN.local.md")
    assert world.paths(cwd=world.home) == [local]


def test_untrusted_folder_reads_only_global_files(world: World) -> None:
    world.git()
    write(world.root / "QWEN.md")
    global_file = write(world.global_dir / "QWEN.md")
    assert world.paths(trusted=False) == [global_file]


def test_the_scan_breaks_at_the_legacy_qwen_dir_and_at_the_global_dir(world: World) -> None:
    inside = world.home / ".qwen" / "notes"
    below = write(inside / "QWEN.md")
    write(world.home / ".qwen" / "QWEN.md")
    write(world.home / "QWEN.md")
    assert world.paths(cwd=inside) == [below]
    in_global = world.global_dir / "projects"
    below_global = write(in_global / "AGENTS.md")
    write(world.global_dir.parent / "AGENTS.md")
    global_agents = write(world.global_dir / "AGENTS.md")
    assert world.paths(cwd=in_global) == [global_agents, below_global]


def test_include_dirs_come_first_and_duplicates_are_dropped(world: World) -> None:
    world.git()
    other = world.root / "other"
    g_qwen = write(world.global_dir / "QWEN.md")
    outer = write(world.outer / "QWEN.md")
    root_qwen = write(world.root / "QWEN.md")
    other_qwen = write(other / "QWEN.md")
    sub_qwen = write(world.sub / "QWEN.md")
    g_agents = write(world.global_dir / "AGENTS.md")
    root_agents = write(world.root / "AGENTS.md")
    found = world.paths(include_dirs=[other, world.sub])
    assert found == [g_qwen, outer, root_qwen, other_qwen, g_agents, root_agents, sub_qwen]


def test_relative_include_dirs_are_taken_from_cwd(world: World) -> None:
    world.git()
    other = write(world.root / "other" / "QWEN.md")
    assert world.paths(include_dirs=[Path("../other")]) == [other]


def test_a_symlink_to_an_already_listed_file_is_a_duplicate(world: World) -> None:
    world.git()
    root_file = write(world.root / "QWEN.md")
    (world.sub / "QWEN.md").symlink_to(root_file)
    assert world.paths() == [root_file]


def test_custom_filenames_replace_the_defaults_in_their_order(world: World) -> None:
    world.git()
    claude = write(world.root / "CLAUDE.md")
    qwen = write(world.sub / "QWEN.md")
    write(world.root / "AGENTS.md")
    assert world.paths(filenames=[" CLAUDE.md ", "", "  ", "QWEN.md"]) == [claude, qwen]


def test_context_filename_setting() -> None:
    assert context_filenames(None) == ("QWEN.md", "AGENTS.md")
    assert context_filenames(" CLAUDE.md ") == ("CLAUDE.md",)
    assert context_filenames(["", " AGENTS.md", "QWEN.md", "AGENTS.md"]) == ("AGENTS.md", "QWEN.md")
    assert context_filenames(["", "  "]) == ("QWEN.md", "AGENTS.md")
    assert context_filenames("   ") == ("QWEN.md", "AGENTS.md")


def test_current_context_filename_is_the_first_non_empty() -> None:
    assert current_context_filename(["", "  ", " AGENTS.md "]) == "AGENTS.md"
    assert current_context_filename(["QWEN.md", "AGENTS.md"]) == "QWEN.md"
    assert current_context_filename([]) == "QWEN.md"


def test_display_paths_are_relative_to_cwd(world: World) -> None:
    world.git()
    write(world.global_dir / "QWEN.md")
    write(world.root / "QWEN.md")
    write(world.sub / "QWEN.md")
    found = discover_instruction_files(world.sub, global_dir=world.global_dir, home=world.home)
    assert [f.display_path for f in found] == ["../../../../../agentctx/config/QWEN.md", "../QWEN.md", "QWEN.md"]
    assert [f.ui_path for f in found] == [
        os.path.relpath(world.global_dir / "QWEN.md", world.sub),
        "~/outer/root/QWEN.md",
        "QWEN.md",
    ]


def test_display_path_strips_ansi_and_control_characters(tmp_path: Path) -> None:
    assert strip_control("a\x1b[31mred\x1b[0m\x07b\nc\x9b\x1b]0;title\x07d") == "aredbcd"
    weird = tmp_path / "x\x1b[1my\ttab" / "QWEN.md"
    assert display_path(weird, tmp_path) == "xytab/QWEN.md"
    assert display_path("relative/\x00QWEN.md", tmp_path) == "relative/QWEN.md"
    assert ui_path(tmp_path / "a" / "QWEN.md", tmp_path / "a", tmp_path) == "QWEN.md"


def test_memory_types(world: World) -> None:
    world.git()
    files = {
        "global": write(world.global_dir / "QWEN.md"),
        "outer": write(world.outer / "QWEN.md"),
        "root": write(world.root / "AGENTS.md"),
        "local": write(world.root / ".qwen" / "QWEN.local.md"),
    }
    found = {f.path: f.memory_type for f in discover_instruction_files(world.sub, global_dir=world.global_dir, home=world.home)}
    assert found[files["global"]] is MemoryType.USER
    assert found[files["outer"]] is MemoryType.PROJECT
    assert found[files["root"]] is MemoryType.PROJECT
    assert found[files["local"]] is MemoryType.LOCAL


def test_a_file_directly_in_home_is_a_user_file(world: World) -> None:
    home_file = write(world.home / "QWEN.md")
    (found,) = discover_instruction_files(world.home, global_dir=world.global_dir, home=world.home)
    assert found.path == home_file and found.memory_type is MemoryType.USER


def test_a_directory_named_like_the_file_is_skipped_and_reported(world: World) -> None:
    world.git()
    (world.root / "QWEN.md").mkdir()
    result = discover(world.sub, global_dir=world.global_dir, home=world.home)
    assert result.files == []
    assert result.problems == ["Skipped ../QWEN.md: a directory, not a file"]


def test_an_unreadable_file_is_skipped_and_reported(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    world.git()
    locked = write(world.root / "QWEN.md")
    real_access = os.access
    monkeypatch.setattr(discovery_module.os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode))
    result = discover(world.sub, global_dir=world.global_dir, home=world.home)
    assert result.files == []
    assert result.problems == ["Skipped ../QWEN.md: Permission denied"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_a_file_without_read_permission_is_skipped(world: World) -> None:
    world.git()
    locked = write(world.root / "QWEN.md")
    locked.chmod(0)
    try:
        result = discover(world.sub, global_dir=world.global_dir, home=world.home)
    finally:
        locked.chmod(0o644)
    assert result.files == [] and result.problems == ["Skipped ../QWEN.md: Permission denied"]


def test_a_symlinked_file_is_found_under_its_own_name(world: World) -> None:
    world.git()
    target = write(world.tmp / "shared" / "team.md")
    link = world.root / "QWEN.md"
    link.symlink_to(target)
    assert world.paths() == [link]


def test_a_symlink_loop_is_reported_not_followed(world: World) -> None:
    world.git()
    loop = world.root / "QWEN.md"
    loop.symlink_to(loop)
    result = discover(world.sub, global_dir=world.global_dir, home=world.home)
    assert result.files == []
    assert result.problems == ["Skipped ../QWEN.md: Symlink loop"]


def test_a_cwd_inside_a_symlink_loop_neither_hangs_nor_crashes(world: World) -> None:
    world.git()
    agents = write(world.root / "AGENTS.md")
    (world.sub / "a").symlink_to(world.sub / "b")
    (world.sub / "b").symlink_to(world.sub / "a")
    result = discover(world.sub / "a", global_dir=world.global_dir, home=world.home)
    assert [f.path for f in result.files] == [agents]
    assert result.git_root == world.root
    assert set(result.problems) == {"Skipped QWEN.md: Symlink loop", "Skipped AGENTS.md: Symlink loop"}


def test_a_broken_symlink_is_reported(world: World) -> None:
    world.git()
    (world.root / "AGENTS.md").symlink_to(world.root / "gone.md")
    result = discover(world.sub, global_dir=world.global_dir, home=world.home)
    assert result.files == [] and result.problems == ["Skipped ../AGENTS.md: broken symlink"]


def test_cwd_through_a_symlinked_directory_is_resolved(world: World) -> None:
    world.git()
    root_file = write(world.root / "QWEN.md")
    link = world.tmp / "link"
    link.symlink_to(world.sub)
    write(world.base / "QWEN.md")  # beyond the stop directory of the real path
    assert world.paths(cwd=link) == [root_file]
