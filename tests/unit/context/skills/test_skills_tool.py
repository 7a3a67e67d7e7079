"""The skill tool: a constant description, Qwen Code's messages, body loading and allowedTools grants."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.skills.content import build_skill_llm_content, unload_placeholder
from app.context.skills.manager import SkillManager
from app.context.skills.model import SkillInvocation, SkillLevel
from app.context.skills.tool import SKILL_TOOL_DESCRIPTION, SkillTool, SkillToolResult
from app.core.tools.base import ToolContext, ToolKind
from app.core.tools.errors import ToolError
from tests.unit.skills_support import write_raw, write_skill

LEVELS = (SkillLevel.PROJECT, SkillLevel.USER)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
def skills(root: Path) -> Path:
    return root / ".qwen" / "skills"


def manager_for(root: Path, disabled: tuple[str, ...] = ()) -> SkillManager:
    return SkillManager(root, root.parent / "config", root.parent / "home", disabled, levels=LEVELS)


async def call(tool: SkillTool, root: Path, **args: object) -> SkillToolResult:
    return await tool.run(dict(args), ToolContext(root=root))


async def error_of(tool: SkillTool, root: Path, **args: object) -> str:
    with pytest.raises(ToolError) as info:
        await call(tool, root, **args)
    return str(info.value)


def test_declaration(root: Path) -> None:
    tool = SkillTool(manager_for(root))
    assert tool.name == "skill"
    assert tool.kind is ToolKind.READ
    assert tool.parameters["required"] == ["skill"]
    assert set(tool.parameters["properties"]) == {"skill", "args"}
    assert tool.subject({"skill": " review "}) == "review"
    assert tool.summarize({"skill": "review"}) == "skill review"


async def test_the_description_is_constant_and_names_no_skill(root: Path, skills: Path) -> None:
    write_skill(skills, "alpha")
    manager = manager_for(root)
    tool = SkillTool(manager)
    before = tool.schema()
    write_skill(skills, "beta")
    manager.reload()
    manager.observe_paths(["x"])
    assert tool.schema() == before == SkillTool(manager_for(root)).schema()
    assert tool.description == SKILL_TOOL_DESCRIPTION
    for name in ("alpha", "beta", "review", "simplify", "stuck", "new-app", "memory-hygiene"):
        assert name not in SKILL_TOOL_DESCRIPTION
    assert "<available_skills>" in SKILL_TOOL_DESCRIPTION and "<system-reminder>" in SKILL_TOOL_DESCRIPTION


@pytest.mark.parametrize("value", [None, "", "   ", 3])
async def test_skill_parameter_must_be_a_non_empty_string(root: Path, value: object) -> None:
    args = {} if value is None else {"skill": value}
    assert await error_of(SkillTool(manager_for(root)), root, **args) == 'Parameter "skill" must be a non-empty string.'


async def test_args_must_be_a_string(root: Path, skills: Path) -> None:
    write_skill(skills, "a")
    message = await error_of(SkillTool(manager_for(root)), root, skill="a", args=["x"])
    assert message == 'Parameter "args" must be a string when provided.'


async def test_unknown_skill_lists_the_available_ones(root: Path, skills: Path) -> None:
    write_skill(skills, "zed")
    write_skill(skills, "abc")
    write_skill(skills, "hidden", paths=["never/**"])
    message = await error_of(SkillTool(manager_for(root)), root, skill="nope")
    assert message == 'Skill "nope" not found. Available skills: abc, zed'


async def test_unknown_skill_with_nothing_available(root: Path) -> None:
    message = await error_of(SkillTool(manager_for(root)), root, skill="nope")
    assert message == 'Skill "nope" not found. No skills are currently available.'


async def test_a_broken_skill_is_not_found(root: Path, skills: Path) -> None:
    write_raw(skills / "broken" / "SKILL.md", "---\nname: broken\n---\nbody\n")
    message = await error_of(SkillTool(manager_for(root)), root, skill="broken")
    assert message == 'Skill "broken" not found. No skills are currently available.'


async def test_disabled_skill(root: Path, skills: Path) -> None:
    write_skill(skills, "lint")
    message = await error_of(SkillTool(manager_for(root, disabled=("LINT",))), root, skill="lint")
    assert message == 'Skill "lint" is disabled. Re-enable it via /skills or remove it from skills.disabled.'


async def test_gated_skill_until_a_matching_path_is_touched(root: Path, skills: Path) -> None:
    write_skill(skills, "ts", paths=["**/*.ts"])
    manager = manager_for(root)
    tool = SkillTool(manager)
    assert await error_of(tool, root, skill="ts") == (
        'Skill "ts" is gated by path-based activation (paths: frontmatter) and is not yet available. '
        "Access a file matching its paths patterns first to activate it."
    )
    manager.observe_paths([root / "a.ts"])
    assert (await call(tool, root, skill="ts")).invocation is not None


async def test_user_only_skill(root: Path, skills: Path) -> None:
    write_skill(skills, "deploy", disable_model_invocation=True)
    message = await error_of(SkillTool(manager_for(root)), root, skill="deploy")
    assert message.startswith('Skill "deploy" can only be started by the user (disable-model-invocation: true)')


async def test_loading_returns_the_body_after_the_base_directory_line(root: Path, skills: Path) -> None:
    path = write_skill(skills, "guide", body="\n\nStep one.\nStep two.\n\n", allowedTools=["read_file"], model="fast")
    manager = manager_for(root)
    invoked: list[SkillInvocation] = []
    result = await call(SkillTool(manager, on_invoke=invoked.append), root, skill="guide")
    expected = (
        f"Base directory for this skill: {path.parent}\n"
        "Important: ALWAYS resolve absolute paths from this base directory when working with skills.\n\n"
        "Step one.\nStep two.\n"
    )
    assert result.output == expected == build_skill_llm_content(path.parent, "Step one.\nStep two.")
    assert not result.is_error and result.summary == "loaded guide"
    invocation = result.invocation
    assert invocation is not None and invoked == [invocation]
    assert (invocation.name, invocation.base_dir, invocation.content) == ("guide", path.parent, expected)
    assert (invocation.allowed_tools, invocation.model) == (("read_file",), "fast")
    assert manager.invoked == {"guide": invocation}


async def test_a_second_load_says_it_is_already_loaded(root: Path, skills: Path) -> None:
    write_skill(skills, "guide")
    manager = manager_for(root)
    tool = SkillTool(manager)
    await call(tool, root, skill="guide")
    again = await call(tool, root, skill="guide")
    assert again.output == 'Skill "guide" is already loaded in context.'
    assert again.invocation is None and not again.is_error
    manager.mark_unloaded("guide")
    assert (await call(tool, root, skill="guide")).invocation is not None


async def test_args_fill_the_placeholder_or_follow_the_body(root: Path, skills: Path) -> None:
    write_skill(skills, "plain", body="Review it.")
    write_skill(skills, "holder", body="Review $ARGUMENTS carefully.")
    tool = SkillTool(manager_for(root))
    assert (await call(tool, root, skill="plain", args="src/x.py")).output.endswith(
        "Review it.\n\nARGUMENTS: src/x.py\n"
    )
    assert (await call(tool, root, skill="holder", args="src/x.py")).output.endswith("Review src/x.py carefully.\n")


async def test_the_body_is_read_at_invocation(root: Path, skills: Path) -> None:
    write_skill(skills, "guide", body="Old text.")
    manager = manager_for(root)
    write_skill(skills, "guide", body="New text.")
    assert (await call(SkillTool(manager), root, skill="guide")).output.endswith("New text.\n")


async def test_a_skill_broken_since_discovery_reports_why(root: Path, skills: Path) -> None:
    path = write_skill(skills, "guide")
    manager = manager_for(root)
    path.write_text("no frontmatter any more", encoding="utf-8")
    message = await error_of(SkillTool(manager), root, skill="guide")
    assert (
        message
        == 'Skill "guide" could not be loaded: Failed to parse skill file: Invalid format: missing YAML frontmatter'
    )


def test_unload_placeholder() -> None:
    assert unload_placeholder("x") == "[Skill 'x' unloaded via /unskill; invoke the Skill tool again to reload.]"
