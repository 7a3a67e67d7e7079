"""The ``skill`` tool: the model loads a listed skill's instructions into the conversation.

The description is a constant with no skill names in it. The tools block heads
the prompt-cache prefix; naming skills there would change the first bytes of
every request whenever a skill appears, so the list travels in
``<system-reminder>`` messages instead (:mod:`app.context.skills.listing`) and
this tool only checks names against the manager's current set.

After a successful load the result carries a :class:`SkillInvocation`; its
``allowed_tools`` are for the caller to grant (:mod:`app.context.skills.grants`).
"""

from __future__ import annotations

from collections.abc import Callable
from app.dataclass import dataclass
from typing import Any

from app.context.skills.content import already_loaded_message, build_skill_llm_content, with_arguments
from app.context.skills.manager import SkillManager
from app.context.skills.model import Skill, SkillInvocation, SkillStatus
from app.context.skills.parse import SkillParseError, read_skill_file
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError

SKILL_TOOL_NAME = "skill"

SKILL_TOOL_DESCRIPTION = (
    "Load a skill: instructions for one kind of task, kept out of the conversation until they are needed. "
    "The skills you can load are listed in <available_skills> inside <system-reminder> messages; the list "
    "may change during the session, and only names from its latest version can be loaded. When a request "
    "matches a skill's description, call this tool with that skill's name before starting the work yourself, "
    "then follow the instructions it returns. Put anything the skill should know (a file, a focus, options) "
    "in args. A skill that is already loaded in this conversation does not need loading again."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "skill": {"type": "string", "description": "The skill's name, exactly as listed in <available_skills>."},
        "args": {"type": "string", "description": "Optional arguments for the skill, such as what to focus on."},
    },
    "required": ["skill"],
}

MISSING_SKILL = 'Parameter "skill" must be a non-empty string.'
ARGS_NOT_TEXT = 'Parameter "args" must be a string when provided.'


@dataclass
class SkillToolResult(ToolResult):
    """The skill tool's result, carrying the invocation whose allowedTools the caller grants."""

    # Set only when the body was loaded just now; None for "already loaded".
    invocation: SkillInvocation | None = None


class SkillTool(Tool):
    name = SKILL_TOOL_NAME
    description = SKILL_TOOL_DESCRIPTION
    kind = ToolKind.READ
    parameters = PARAMETERS

    def __init__(self, manager: SkillManager, on_invoke: Callable[[SkillInvocation], None] | None = None) -> None:
        self.manager = manager
        self.on_invoke = on_invoke

    def summarize(self, args: dict[str, Any]) -> str:
        name = args.get("skill")
        return f"skill {name}" if isinstance(name, str) and name.strip() else "skill"

    def subject(self, args: dict[str, Any]) -> str:
        # Rules such as ``skill(review)`` match the skill's name.
        name = args.get("skill")
        return name.strip() if isinstance(name, str) else ""

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> SkillToolResult:
        requested = args.get("skill")
        if not isinstance(requested, str) or not requested.strip():
            raise ToolError(MISSING_SKILL)
        extra = args.get("args")
        if extra is not None and not isinstance(extra, str):
            raise ToolError(ARGS_NOT_TEXT)
        skill = self._usable_skill(requested.strip())
        if self.manager.is_loaded(skill.name):
            return SkillToolResult(output=already_loaded_message(skill.name), summary="already loaded")
        invocation = self._load(skill, extra)
        self.manager.record_invocation(invocation)
        if self.on_invoke is not None:
            self.on_invoke(invocation)
        return SkillToolResult(output=invocation.content, summary=f"loaded {skill.name}", invocation=invocation)

    def _usable_skill(self, name: str) -> Skill:
        skill = self.manager.get(name)
        if skill is None:
            raise ToolError(not_found_message(name, [known.name for known in self.manager.available()]))
        status = self.manager.status(skill)
        if status is SkillStatus.DISABLED:
            raise ToolError(f'Skill "{name}" is disabled. Re-enable it via /skills or remove it from skills.disabled.')
        if status is SkillStatus.USER_ONLY:
            raise ToolError(
                f'Skill "{name}" can only be started by the user (disable-model-invocation: true); '
                "it cannot be loaded with this tool."
            )
        if status is SkillStatus.WAITING:
            raise ToolError(
                f'Skill "{name}" is gated by path-based activation (paths: frontmatter) and is not yet available. '
                "Access a file matching its paths patterns first to activate it."
            )
        return skill

    def _load(self, skill: Skill, args: str | None) -> SkillInvocation:
        return load_invocation(skill, args)


def load_invocation(skill: Skill, args: str | None) -> SkillInvocation:
    """The skill's body as it enters the context, read again now (the person may have edited it)."""
    try:
        parsed = read_skill_file(skill.path, skill.level)
    except SkillParseError as exc:
        raise ToolError(f'Skill "{skill.name}" could not be loaded: {exc.message}') from exc
    content = build_skill_llm_content(skill.base_dir, with_arguments(parsed.body, args))
    return SkillInvocation(
        name=skill.name,
        level=skill.level,
        base_dir=skill.base_dir,
        content=content,
        allowed_tools=parsed.skill.allowed_tools,
        model=parsed.skill.model,
        args=args,
    )


def run_for_person(tool: SkillTool, name: str, args: str | None) -> SkillInvocation:
    """A skill the person starts as ``/name``: only a disabled one is refused.

    ``disable-model-invocation`` and ``paths:`` gating limit what the model may load on
    its own; a person asking by name is the case they leave open. The invocation is
    recorded and granted exactly as a load by the model is.
    """
    manager = tool.manager
    skill = manager.get(name)
    if skill is None:
        raise ToolError(not_found_message(name, [known.name for known in manager.available()]))
    if manager.status(skill) is SkillStatus.DISABLED:
        raise ToolError(f'Skill "{name}" is disabled. Re-enable it in the skills panel (F4) or remove it from skills.disabled.')
    invocation = load_invocation(skill, args)
    manager.record_invocation(invocation)
    if tool.on_invoke is not None:
        tool.on_invoke(invocation)
    return invocation


def not_found_message(name: str, available: list[str]) -> str:
    if not available:
        return f'Skill "{name}" not found. No skills are currently available.'
    return f'Skill "{name}" not found. Available skills: {", ".join(available)}'
