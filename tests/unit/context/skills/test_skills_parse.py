"""SKILL.md parsing: the frontmatter rules and Qwen Code's exact error messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.skills.model import SkillErrorCode, SkillLevel, SkillProblem
from app.context.skills.parse import SkillParseError, load_skill, parse_skill_text, read_skill_file
from tests.unit.skills_support import skill_text, write_raw

P = Path("/skills/x/SKILL.md")


def parse(text: str):
    return parse_skill_text(text, P, SkillLevel.PROJECT)


def error_of(text: str) -> SkillParseError:
    with pytest.raises(SkillParseError) as info:
        parse(text)
    return info.value


def test_a_complete_skill() -> None:
    parsed = parse(
        "---\n"
        "name: api-conventions\n"
        "description: How our HTTP handlers are written.\n"
        "when_to_use: Editing anything under src/api.\n"
        "argument-hint: '[handler]'\n"
        "model: qwen3-coder\n"
        "allowedTools: [read_file, 'run_shell_command(git diff *)']\n"
        "disable-model-invocation: false\n"
        "paths: ['src/api/**', '  ', '  *.http  ']\n"
        "priority: 3\n"
        "hooks: {before: echo}\n"
        "---\n"
        "\n  Use the Result type.  \n\n"
    )
    skill = parsed.skill
    assert (skill.name, skill.description, skill.when_to_use) == (
        "api-conventions",
        "How our HTTP handlers are written.",
        "Editing anything under src/api.",
    )
    assert skill.argument_hint == "[handler]"
    assert skill.model == "qwen3-coder"
    assert skill.allowed_tools == ("read_file", "run_shell_command(git diff *)")
    assert skill.paths == ("src/api/**", "*.http")  # trimmed, empties dropped
    assert skill.priority == 3
    assert skill.hooks == {"before": "echo"}
    assert skill.disable_model_invocation is False
    assert skill.conditional
    assert skill.base_dir == P.parent
    assert parsed.body == "Use the Result type."


def test_crlf_is_normalized_and_a_closing_fence_at_the_end_of_file_is_accepted() -> None:
    assert parse("---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n").body == "body"
    with pytest.raises(SkillParseError) as info:
        parse("---\nname: a\ndescription: d\n---")
    assert "no instructions" in info.value.message  # parsed fine; only the body is missing


@pytest.mark.parametrize(
    "text",
    [
        "just markdown\n",
        "\n---\nname: a\ndescription: d\n---\nbody\n",  # must be the very first line
        "---\nname: a\ndescription: d\nbody without a closing fence\n",
        "---\nname: a\ndescription: d\n----\nbody\n",
    ],
)
def test_missing_frontmatter(text: str) -> None:
    error = error_of(text)
    assert error.message == "Invalid format: missing YAML frontmatter"
    assert error.code is SkillErrorCode.PARSE_ERROR


@pytest.mark.parametrize("header", ["description: d", "name: ''\ndescription: d", "name:\ndescription: d"])
def test_missing_name(header: str) -> None:
    error = error_of(f"---\n{header}\n---\nbody\n")
    assert error.message == 'Missing "name" in frontmatter'
    assert error.code is SkillErrorCode.INVALID_CONFIG


@pytest.mark.parametrize("name", ["two words", "a/b", "back\\slash", "emoji🙂", "tab\tname", "[x]"])
def test_invalid_names(name: str) -> None:
    error = error_of(skill_text(name))
    assert error.code is SkillErrorCode.INVALID_NAME
    assert error.message.startswith('Invalid "name" in frontmatter:')


@pytest.mark.parametrize("name", ["review", "a_b", "ns:tool", "v1.2", "résumé", "工具", "x-٣"])
def test_valid_names_are_letters_and_digits_of_any_script_plus_punctuation(name: str) -> None:
    assert parse(f"---\nname: {name}\ndescription: d\n---\nbody\n").skill.name == name


def test_a_numeric_name_is_read_as_text() -> None:
    assert parse("---\nname: 2024\ndescription: d\n---\nbody\n").skill.name == "2024"


@pytest.mark.parametrize("header", ["name: a", "name: a\ndescription: ''", "name: a\ndescription: '   '"])
def test_missing_description(header: str) -> None:
    assert error_of(f"---\n{header}\n---\nbody\n").message == 'Missing "description" in frontmatter'


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("allowedTools: read_file", '"allowedTools" must be an array'),
        ("model: 3", '"model" must be a string'),
        ("model: [a]", '"model" must be a string'),
        ("paths: 'src/**'", '"paths" must be an array of glob patterns'),
        ("paths: {a: 1}", '"paths" must be an array of glob patterns'),
        ("when_to_use: [a]", '"when_to_use" must be a string'),
        ("argument-hint: {a: 1}", '"argument-hint" must be a string'),
        ("priority: high", '"priority" must be a number'),
    ],
)
def test_field_type_errors(field: str, message: str) -> None:
    error = error_of(f"---\nname: a\ndescription: d\n{field}\n---\nbody\n")
    assert error.message == message
    assert error.code is SkillErrorCode.INVALID_CONFIG


@pytest.mark.parametrize("value", ["''", "inherit", "null"])
def test_model_inherit_or_empty_means_unset(value: str) -> None:
    assert parse(f"---\nname: a\ndescription: d\nmodel: {value}\n---\nbody\n").skill.model is None


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("'true'", True), ("false", False), ("'yes'", False)])
def test_disable_model_invocation(value: str, expected: bool) -> None:
    text = f"---\nname: a\ndescription: d\ndisable-model-invocation: {value}\n---\nbody\n"
    assert parse(text).skill.disable_model_invocation is expected


@pytest.mark.parametrize("pattern", ["/src/**", "\\src\\x"])
def test_absolute_paths_entry(pattern: str) -> None:
    error = error_of(f"---\nname: a\ndescription: d\npaths: ['{pattern}']\n---\nbody\n")
    assert error.message == (
        f'"paths" entry "{pattern}" looks absolute; patterns are project-root-relative — drop the leading slash'
    )
    assert error.code is SkillErrorCode.INVALID_CONFIG


@pytest.mark.parametrize("pattern", ["..", "../other/**"])
def test_escaping_paths_entry(pattern: str) -> None:
    error = error_of(f"---\nname: a\ndescription: d\npaths: ['{pattern}']\n---\nbody\n")
    assert error.message == f'"paths" entry "{pattern}" escapes the project root; patterns must stay within the project'


@pytest.mark.parametrize("value", ["[]", "['  ', '']", "null"])
def test_empty_paths_mean_unconditional(value: str) -> None:
    skill = parse(f"---\nname: a\ndescription: d\npaths: {value}\n---\nbody\n").skill
    assert skill.paths == () and not skill.conditional


def test_yaml_errors_name_the_line_as_the_editor_shows_it() -> None:
    error = error_of("---\nname: a\ndescription: d\nbad: [unclosed\n---\nbody\n")
    assert error.code is SkillErrorCode.PARSE_ERROR
    assert error.message.startswith("invalid YAML in frontmatter at line ")
    error = error_of("---\nname: a\ndescription: one: two\n---\nbody\n")
    assert "at line 3" in error.message


def test_frontmatter_that_is_not_a_mapping() -> None:
    assert error_of("---\n- a\n- b\n---\nbody\n").message.startswith("Invalid format:")


def test_an_empty_body_is_rejected() -> None:
    error = error_of("---\nname: a\ndescription: d\n---\n\n   \n")
    assert error.code is SkillErrorCode.INVALID_CONFIG
    assert error.message == "the skill has no instructions after the frontmatter"


def test_file_errors_are_wrapped_and_name_the_file(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "x" / "SKILL.md", "---\nname: bad name\ndescription: d\n---\nbody\n")
    problem = load_skill(path, SkillLevel.USER)
    assert isinstance(problem, SkillProblem)
    assert problem.message.startswith('Failed to parse skill file: Invalid "name" in frontmatter')
    assert problem.code is SkillErrorCode.INVALID_NAME
    assert str(problem).startswith(f"{path}: ")
    assert problem.level is SkillLevel.USER


def test_yaml_error_through_the_loader_names_file_and_line(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "x" / "SKILL.md", "---\nname: a\ndescription: d\n  oops: [\n---\nbody\n")
    problem = load_skill(path, SkillLevel.PROJECT)
    assert isinstance(problem, SkillProblem)
    assert problem.message.startswith("Failed to parse skill file: invalid YAML in frontmatter at line ")
    assert str(path) in str(problem)


def test_read_errors_are_wrapped(tmp_path: Path) -> None:
    (tmp_path / "x" / "SKILL.md").mkdir(parents=True)
    with pytest.raises(SkillParseError) as info:
        read_skill_file(tmp_path / "x" / "SKILL.md", SkillLevel.PROJECT)
    assert info.value.code is SkillErrorCode.FILE_ERROR
    assert info.value.message.startswith("Failed to read skill file: ")
    assert "is a directory" in info.value.message
    missing = load_skill(tmp_path / "nope" / "SKILL.md", SkillLevel.PROJECT)
    assert isinstance(missing, SkillProblem) and missing.message.startswith("Failed to read skill file: ")


def test_a_byte_order_mark_and_invalid_utf8_do_not_break_parsing(tmp_path: Path) -> None:
    path = tmp_path / "x" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(b"\xef\xbb\xbf---\nname: a\ndescription: caf\xe9\n---\nbody\n")
    skill = load_skill(path, SkillLevel.PROJECT)
    assert not isinstance(skill, SkillProblem)
    assert skill.description == "caf\ufffd"
