"""The YAML-free reading of skill frontmatter gives exactly what YAML gives, or declines."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from app.context.plain_frontmatter import plain_frontmatter
from app.context.skills.model import SkillLevel
from app.context.skills.parse import parse_skill_text

BUNDLED = Path(__file__).resolve().parents[3] / "bundled_skills"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _block(path: Path) -> str:
    match = re.match(r"^---\n([\s\S]*?)\n---", path.read_text(encoding="utf-8"))
    assert match is not None, path
    return match.group(1)


def test_every_bundled_skill_is_read_without_yaml_and_as_yaml_reads_it() -> None:
    skills = sorted(BUNDLED.glob("*/SKILL.md"))
    assert len(skills) >= 5
    for path in skills:
        block = _block(path)
        assert plain_frontmatter(block) == yaml.load(block, Loader=LOADER), path


def test_plain_strings_quoted_strings_and_lists() -> None:
    block = 'name: review\ndescription: "[commit range] or path"\nallowedTools:\n  - run_shell_command(git diff *)\n  - read_file'
    assert plain_frontmatter(block) == {
        "name": "review",
        "description": "[commit range] or path",
        "allowedTools": ["run_shell_command(git diff *)", "read_file"],
    }


def test_what_yaml_reads_as_something_else_is_left_to_yaml() -> None:
    # Each of these is not a plain string to YAML (a number, a boolean, null, a comment, a
    # nested mapping, an alias, an escape, a flow list, a key that is a boolean...).
    for block in (
        "priority: 5",
        "disable-model-invocation: true",
        "disable-model-invocation: yes",
        "model: ~",
        "model: null",
        "model:",
        "description: fixes bugs # quickly",
        "description: a: b",
        "hooks:\n  pre: x",
        "description: *anchor",
        'description: "tab\\there"',
        "paths: [a, b]",
        "on: push",
        "name: x\nname: y",
        "description: 2024-01-01",
        "description: .inf",
        "name: x\n\ndescription: y",
        "allowed:\n  - a\n    - b",
        "allowed:\n  - a\n - b",
        "name: x\n  continued",
        "name:x",
        "description: 'single'",
        "description: \x85next",
    ):
        assert plain_frontmatter(block) is None, block


def test_blank_lines_and_whole_line_comments_are_read_as_yaml_reads_them() -> None:
    # Memory files often carry them; they must not send a plain header through YAML.
    block = "# written by hand\nname: x\n\ndescription: some words\npaths:\n  # the api\n  - src/api/**\n\n  - tests/**"
    assert plain_frontmatter(block) == yaml.load(block, Loader=LOADER) == {
        "name": "x",
        "description": "some words",
        "paths": ["src/api/**", "tests/**"],
    }
    assert plain_frontmatter("# only a comment\n") is None  # YAML reads None; the caller makes it {}


def test_a_skill_parses_the_same_through_the_fast_path_and_through_yaml() -> None:
    text = "---\nname: tidy\ndescription: Tidy the imports\nwhen_to_use: After an edit\nallowedTools:\n  - read_file\n---\nDo it.\n"
    fast = parse_skill_text(text, Path("/skills/tidy/SKILL.md"), SkillLevel.USER)
    # The same skill with one field YAML has to read (a comment): the slow path.
    slow = parse_skill_text(text.replace("After an edit", "After an edit # always"), Path("/skills/tidy/SKILL.md"), SkillLevel.USER)
    assert fast.skill.allowed_tools == slow.skill.allowed_tools
    assert fast.skill.allowed_tools
    assert (fast.skill.name, fast.skill.description, fast.skill.when_to_use) == ("tidy", "Tidy the imports", "After an edit")
    assert (slow.skill.name, slow.skill.when_to_use) == ("tidy", "After an edit")


_KEYS = st.sampled_from(["name", "description", "when_to_use", "argument-hint", "model", "on", "yes", "priority", "allowedTools", "x_1"])
_VALUE_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\n\r")
_VALUES = st.one_of(
    st.text(_VALUE_CHARS, max_size=20),
    st.text(st.sampled_from(list("ab: #-\"'[]{}*&!|>%@`,?0123456789.~+<=tT\\\t\x85\xa0\u2028\ufeff")), max_size=8),
    st.sampled_from(["true", "no", "null", "~", "12", "1.5", "2024-05-01", ".nan", "0x1f", "<<", "=", "a #b", "a:b", "a: b"]),
)


@st.composite
def _blocks(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(_KEYS)
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(_VALUES)}")
        else:
            indent = " " * draw(st.integers(0, 3))
            lines.append(f"{key}:")
            lines.extend(f"{indent}- {draw(_VALUES)}" for _ in range(draw(st.integers(0, 3))))
        # Blank lines and whole-line comments, anywhere (also between a `key:` and its items).
        lines.extend(draw(st.lists(st.sampled_from(["", "  ", "# note", "  # note", "#"]), max_size=1)))
    if draw(st.booleans()):
        lines.insert(0, "# leading comment")
    return "\n".join(lines)


@settings(max_examples=1500, deadline=None)
@given(_blocks())
def test_whenever_the_fast_path_answers_it_agrees_with_yaml(block: str) -> None:
    got = plain_frontmatter(block)
    if got is None:
        return
    assert got == yaml.load(block, Loader=LOADER)
