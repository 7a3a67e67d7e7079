"""Skill discovery: level precedence, shadowing, the home-dir rule, symlinks and odd entries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.context.skills.discovery import bundled_skills_dir, discover_skills, ensure_user_skills_dir, skills_dirs
from app.context.skills.model import ALL_LEVELS, Skill, SkillErrorCode, SkillLevel
from tests.unit.skills_support import write_raw, write_skill

NO_BUNDLED = (SkillLevel.PROJECT, SkillLevel.USER)
BUNDLED_NAMES = ["memory-hygiene", "new-app", "review", "simplify", "stuck"]


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    root = home / "work" / "repo"
    config = tmp_path / "config"
    for path in (root, config):
        path.mkdir(parents=True)
    return {
        "home": home,
        "root": root,
        "config": config,
        "project_qwen": root / ".qwen" / "skills",
        "project_agents": root / ".agents" / "skills",
        "user_config": config / "skills",
        "user_agents": home / ".agents" / "skills",
    }


def discover(tree: dict[str, Path], **kwargs: object):
    kwargs.setdefault("levels", NO_BUNDLED)
    return discover_skills(tree["root"], tree["config"], tree["home"], **kwargs)  # type: ignore[arg-type]


def by_name(skills: list[Skill]) -> dict[str, Skill]:
    return {skill.name: skill for skill in skills}


def test_dirs_in_priority_order(tree: dict[str, Path]) -> None:
    dirs = skills_dirs(tree["root"], tree["config"], tree["home"], levels=ALL_LEVELS)
    assert [(d.level, d.path) for d in dirs[:4]] == [
        (SkillLevel.PROJECT, tree["project_qwen"]),
        (SkillLevel.PROJECT, tree["project_agents"]),
        (SkillLevel.USER, tree["user_config"]),
        (SkillLevel.USER, tree["user_agents"]),
    ]
    assert dirs[4].level is SkillLevel.BUNDLED and dirs[4].path == bundled_skills_dir()


def test_first_name_wins_and_the_rest_are_shadowed(tree: dict[str, Path]) -> None:
    for key in ("project_qwen", "project_agents", "user_config", "user_agents"):
        write_skill(tree[key], "shared", description=f"from {key}")
        write_skill(tree[key], f"only-{key.replace('_', '-')}")
    found = discover(tree)
    shared = by_name(found.skills)["shared"]
    assert shared.description == "from project_qwen"
    assert shared.level is SkillLevel.PROJECT
    assert [(hidden.description, winner.description) for hidden, winner in found.shadowed] == [
        ("from project_agents", "from project_qwen"),
        ("from user_config", "from project_qwen"),
        ("from user_agents", "from project_qwen"),
    ]
    assert sorted(by_name(found.skills)) == [
        "only-project-agents",
        "only-project-qwen",
        "only-user-agents",
        "only-user-config",
        "shared",
    ]
    assert found.problems == []


def test_the_name_comes_from_frontmatter_not_the_folder(tree: dict[str, Path]) -> None:
    write_skill(tree["project_qwen"], "folder-a", name="same")
    write_skill(tree["user_config"], "folder-b", name="same", description="user")
    found = discover(tree)
    assert [skill.path.parent.name for skill in found.skills] == ["folder-a"]
    assert len(found.shadowed) == 1


def test_project_level_is_skipped_when_the_project_root_is_home(tree: dict[str, Path]) -> None:
    write_skill(tree["home"] / ".qwen" / "skills", "homeproj")
    write_skill(tree["user_agents"], "agents-user")
    found = discover_skills(tree["home"], tree["config"], tree["home"], levels=NO_BUNDLED)
    assert [skill.name for skill in found.skills] == ["agents-user"]
    assert found.skills[0].level is SkillLevel.USER
    assert all(d.level is SkillLevel.USER for d in found.dirs)


def test_an_untrusted_project_contributes_no_skills(tree: dict[str, Path]) -> None:
    write_skill(tree["project_qwen"], "p")
    write_skill(tree["user_config"], "u")
    assert [s.name for s in discover(tree, trusted=False).skills] == ["u"]


def test_bundled_skills_ship_with_the_app_and_all_parse(tree: dict[str, Path]) -> None:
    found = discover(tree, levels=(SkillLevel.BUNDLED,))
    assert found.problems == []
    assert sorted(by_name(found.skills)) == BUNDLED_NAMES
    assert all(skill.level is SkillLevel.BUNDLED and not skill.conditional for skill in found.skills)


def test_a_project_skill_shadows_a_bundled_one(tree: dict[str, Path]) -> None:
    write_skill(tree["project_qwen"], "review", description="our review")
    found = discover(tree, levels=ALL_LEVELS)
    assert by_name(found.skills)["review"].description == "our review"
    assert [(hidden.level, winner.level) for hidden, winner in found.shadowed] == [
        (SkillLevel.BUNDLED, SkillLevel.PROJECT)
    ]


def test_a_skill_folder_may_be_a_symlink_inside_the_project(tree: dict[str, Path]) -> None:
    write_skill(tree["root"] / "tools" / "skills", "linked")
    tree["project_qwen"].mkdir(parents=True)
    (tree["project_qwen"] / "linked").symlink_to(tree["root"] / "tools" / "skills" / "linked", target_is_directory=True)
    found = discover(tree)
    assert [skill.name for skill in found.skills] == ["linked"]
    assert found.skills[0].path == tree["project_qwen"] / "linked" / "SKILL.md"


def test_a_project_skill_linking_out_of_the_project_is_refused(tree: dict[str, Path], tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    write_skill(outside, "linked", description="reads ~/.ssh")
    tree["project_qwen"].mkdir(parents=True)
    (tree["project_qwen"] / "linked").symlink_to(outside / "linked", target_is_directory=True)
    # A skill folder inside the project whose SKILL.md alone links out is refused the same way.
    (tree["project_qwen"] / "half").mkdir()
    (tree["project_qwen"] / "half" / "SKILL.md").symlink_to(outside / "linked" / "SKILL.md")
    found = discover(tree)
    assert found.skills == []
    assert sorted(p.path.name for p in found.problems) == ["half", "linked"]
    assert all(p.message.startswith("Cannot load skill: Path traversal attempt - it links to ") for p in found.problems)


def test_a_user_skill_must_stay_in_the_users_own_dirs(tree: dict[str, Path], tmp_path: Path) -> None:
    write_skill(tmp_path / "downloads", "stray")
    tree["user_config"].mkdir(parents=True)
    (tree["user_config"] / "stray").symlink_to(tmp_path / "downloads" / "stray", target_is_directory=True)
    found = discover(tree)
    assert found.skills == [] and "Path traversal attempt" in found.problems[0].message


def test_symlink_loop_and_broken_symlink_become_problems(tree: dict[str, Path]) -> None:
    skills = tree["project_qwen"]
    write_skill(skills, "good")
    (skills / "loop").symlink_to(skills / "loop")
    (skills / "broken").symlink_to(skills / "nowhere")
    found = discover(tree)
    assert [s.name for s in found.skills] == ["good"]
    messages = {problem.path.name: problem.message for problem in found.problems}
    assert "loops back on itself" in messages["loop"]
    assert "does not exist" in messages["broken"]
    assert all(problem.code is SkillErrorCode.FILE_ERROR for problem in found.problems)


def test_a_skill_md_that_is_a_directory_is_a_problem(tree: dict[str, Path]) -> None:
    (tree["project_qwen"] / "odd" / "SKILL.md").mkdir(parents=True)
    (problem,) = discover(tree).problems
    assert problem.message.startswith("Failed to read skill file: ")
    assert "is a directory" in problem.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifos_are_problems_and_never_block(tree: dict[str, Path]) -> None:
    skills = tree["project_qwen"]
    skills.mkdir(parents=True)
    os.mkfifo(skills / "pipe")
    (skills / "fifo-skill").mkdir()
    os.mkfifo(skills / "fifo-skill" / "SKILL.md")
    write_skill(skills, "fine")
    found = discover(tree)
    assert [s.name for s in found.skills] == ["fine"]
    messages = {problem.path.name: problem.message for problem in found.problems}
    assert "is a FIFO" in messages["pipe"]
    assert "not a regular file" in messages["SKILL.md"]


def test_plain_files_hidden_entries_and_folders_without_skill_md_are_ignored(tree: dict[str, Path]) -> None:
    skills = tree["project_qwen"]
    write_raw(skills / "README.md", "notes")
    write_skill(skills, ".hidden")
    (skills / "empty-folder").mkdir()
    write_skill(skills, "real")
    found = discover(tree)
    assert [s.name for s in found.skills] == ["real"]
    assert found.problems == []


def test_a_lowercase_skill_md_is_pointed_out(tree: dict[str, Path]) -> None:
    write_raw(tree["project_qwen"] / "typo" / "skill.md", "---\nname: typo\ndescription: d\n---\nbody\n")
    found = discover(tree)
    if (tree["project_qwen"] / "typo" / "SKILL.md").exists():  # a case-insensitive filesystem reads it anyway
        pytest.skip("case-insensitive filesystem")
    (problem,) = found.problems
    assert "must be named SKILL.md" in problem.message


def test_one_unusable_dir_does_not_hide_the_others(tree: dict[str, Path]) -> None:
    write_raw(tree["project_qwen"], "a file where a dir should be")
    write_skill(tree["project_agents"], "agents-skill")
    write_skill(tree["user_config"], "user-skill")
    write_raw(tree["user_config"] / "broken" / "SKILL.md", "no frontmatter")
    found = discover(tree)
    assert sorted(s.name for s in found.skills) == ["agents-skill", "user-skill"]
    assert {problem.path for problem in found.problems} == {
        tree["project_qwen"],
        tree["user_config"] / "broken" / "SKILL.md",
    }


def test_a_dir_reached_twice_does_not_shadow_itself(tree: dict[str, Path]) -> None:
    write_skill(tree["user_agents"], "once")
    tree["config"].rmdir()
    tree["config"].mkdir()
    (tree["config"] / "skills").symlink_to(tree["user_agents"], target_is_directory=True)
    found = discover(tree)
    assert [s.name for s in found.skills] == ["once"]
    assert found.shadowed == []


def test_missing_dirs_are_not_problems(tree: dict[str, Path]) -> None:
    found = discover(tree)
    assert (found.skills, found.problems) == ([], [])
    assert not tree["user_config"].exists()  # discovery never creates anything
    assert ensure_user_skills_dir(tree["config"]).is_dir()
