"""Conditional activation: ``paths:`` globs against project-relative paths touched by tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.skills.activation import MAX_PATTERN_LENGTH, SkillActivator, resolve_project_relative_path
from app.context.skills.model import Skill, SkillErrorCode, SkillLevel
from app.context.skills.touched import touched_paths

ROOT = Path("/repo")


def skill(name: str, *paths: str) -> Skill:
    return Skill(
        name=name, description="d", level=SkillLevel.PROJECT, path=Path(f"/skills/{name}/SKILL.md"), paths=paths
    )


def activator(*skills: Skill, root: Path = ROOT, previous: SkillActivator | None = None) -> SkillActivator:
    return SkillActivator(root, skills, previous=previous)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("src/a.ts", "src/a.ts"),
        ("./src/a.ts", "src/a.ts"),
        ("/repo/src/a.ts", "src/a.ts"),
        ("/repo/src/../lib/b.py", "lib/b.py"),
        ("/repo", None),  # the root itself is not a file
        (".", None),
        ("/repository/x", None),  # a sibling that only shares a prefix
        ("/etc/passwd", None),
        ("../other/x.ts", None),
        ("src/../../x.ts", None),
        ("src\\win\\a.ts", "src/win/a.ts"),
        ("", None),
    ],
)
def test_resolve_project_relative_path(raw: str, expected: str | None) -> None:
    assert resolve_project_relative_path(raw, ROOT) == expected


def test_relative_and_absolute_inputs_activate_and_activation_sticks() -> None:
    gate = activator(skill("api", "src/api/**"), skill("always"))
    assert not gate.is_active("api") and gate.is_active("always")
    assert gate.observe_paths(["README.md", "src/web/x.ts"]) == []
    assert gate.observe_paths([ROOT / "src" / "api" / "v1" / "users.py"]) == ["api"]
    assert gate.is_active("api")
    assert gate.observe_paths(["src/api/again.py"]) == []  # only newly activated names are returned


def test_paths_outside_the_root_never_match_even_a_catch_all() -> None:
    gate = activator(skill("all", "**"))
    assert gate.observe_paths(["/elsewhere/src/x.ts", "../x.ts", "/repo/../x.ts"]) == []
    assert gate.observe_paths(["x.ts"]) == ["all"]


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("*.js", ".eslintrc.js"),
        ("**/*.yml", ".github/workflows/ci.yml"),
        (".github/**", ".github/workflows/ci.yml"),
        ("src/**/*.ts", "src/a.ts"),
        ("src/**/*.ts", "src/deep/er/a.ts"),
        ("**/Dockerfile", "Dockerfile"),
        ("**/**/**/*.md", "docs/a/b.md"),
        ("*.{ts,tsx}", "App.tsx"),
    ],
)
def test_globs_match_dot_files_and_double_stars(pattern: str, path: str) -> None:
    assert activator(skill("s", pattern)).observe_paths([path]) == ["s"]


@pytest.mark.parametrize(
    ("pattern", "path"), [("*.ts", "src/a.ts"), ("src/*.ts", "src/deep/a.ts"), ("src/**", "srcx/a")]
)
def test_globs_do_not_overmatch(pattern: str, path: str) -> None:
    assert activator(skill("s", pattern)).observe_paths([path]) == []


def test_patterns_are_ored_and_several_skills_can_wake_on_one_path() -> None:
    gate = activator(skill("b", "docs/**", "*.md"), skill("a", "**/*.md"), skill("c", "src/**"))
    assert gate.observe_paths(["notes.md"]) == ["b", "a"]
    assert gate.observe_paths(["src/x"]) == ["c"]


def test_invalid_patterns_are_dropped_one_by_one_and_reported() -> None:
    gate = activator(skill("mixed", "[z-a].ts", "src/**"), skill("only-bad", "[b-a]"))
    keys = [problem.key for problem in gate.problems]
    assert keys == ["/skills/mixed/SKILL.md#paths[[z-a].ts]", "/skills/only-bad/SKILL.md#paths[[b-a]]"]
    first = gate.problems[0]
    assert first.code is SkillErrorCode.INVALID_CONFIG
    assert first.message.startswith('Invalid glob in "paths": [z-a].ts — ')
    assert gate.observe_paths(["src/x"]) == ["mixed"]  # the valid pattern still works
    assert gate.observe_paths(["b", "a", "[b-a]"]) == []  # nothing left to match: it stays waiting
    assert gate.is_conditional("only-bad") and not gate.is_active("only-bad")


def test_very_long_patterns() -> None:
    too_long = "a" * (MAX_PATTERN_LENGTH + 1)
    just_fits = "src/" + "b" * (MAX_PATTERN_LENGTH - 10) + "/*.py"
    gate = activator(skill("long", too_long, just_fits))
    (problem,) = gate.problems
    assert (
        problem.message
        == f'Invalid glob in "paths": {too_long} — pattern is longer than {MAX_PATTERN_LENGTH} characters'
    )
    assert gate.observe_paths([too_long]) == []
    assert gate.observe_paths(["src/" + "b" * (MAX_PATTERN_LENGTH - 10) + "/x.py"]) == ["long"]


def test_many_globstars_do_not_backtrack_forever() -> None:
    gate = activator(skill("deep", "a/" + "**/" * 40 + "z"))
    assert gate.observe_paths(["a/" + "x/" * 60 + "y"]) == []  # returns promptly: the ** run is collapsed
    assert gate.observe_paths(["a/x/z"]) == ["deep"]


def test_a_symlinked_root_accepts_paths_through_either_name(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    gate = activator(skill("s", "src/**"), root=link)
    assert gate.observe_paths([str(real / "src" / "x")]) == ["s"]


def test_reload_keeps_activation_unless_the_patterns_changed() -> None:
    first = activator(skill("same", "src/**"), skill("edited", "docs/**"))
    first.observe_paths(["src/a", "docs/a"])
    second = activator(skill("same", "src/**"), skill("edited", "docs/**/*.md"), previous=first)
    assert second.is_active("same")
    assert not second.is_active("edited")  # an edited glob takes effect at once
    assert second.observe_paths(["docs/a"]) == []
    assert second.observe_paths(["docs/a.md"]) == ["edited"]


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("read_file", {"path": "src/a.ts"}, ["src/a.ts"]),
        ("edit", {"path": " /repo/x.py "}, ["/repo/x.py"]),
        ("glob", {"path": "src", "pattern": "**/*.ts"}, ["src/**/*.ts"]),
        ("glob", {"pattern": "*.md"}, ["*.md"]),
        ("grep_search", {"pattern": "TODO", "path": "lib", "include": "*.py"}, ["lib/*.py"]),
        ("grep_search", {"pattern": "TODO"}, []),
        ("run_shell_command", {"command": "cat x"}, []),
        ("read_file", {"path": 3}, []),
    ],
)
def test_touched_paths(tool: str, args: dict[str, object], expected: list[str]) -> None:
    assert touched_paths(tool, args) == expected


def test_a_glob_call_counts_as_touching_its_pattern() -> None:
    gate = activator(skill("ts", "src/**/*.ts"))
    assert gate.observe_paths(touched_paths("glob", {"path": "src", "pattern": "**/*.ts"})) == ["ts"]
