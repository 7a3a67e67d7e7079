"""Skills: ``<skill>/SKILL.md`` folders of task instructions the model loads when it needs them.

:class:`SkillManager` is the entry point (discovery, path activation, the
``<available_skills>`` reminders, enable/disable); :class:`SkillTool` is the
model's way to load one; :func:`watch_skills` reloads the manager on change;
:func:`grant_allowed_tools` lets a loaded skill's ``allowedTools`` run
unasked, within the limits of :class:`SkillGrantPolicy`.

The names below load from their modules on first use (PEP 562), as in ``app.context.memory``:
importing any one module of the package runs this file, and importing all of them here put
the shell grammar (through the grants' read-only check) and the watcher on every headless
turn's start-up (`python -X importtime -m app -p ...`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.lazy_names import lazy_names

# submodule -> the names it exports
_NAMES = lazy_names(
    __name__,
    {
        "activation": ("SkillActivator", "resolve_project_relative_path"),
        "content": ("build_skill_llm_content", "unload_placeholder"),
        "discovery": ("Discovery", "SkillsDir", "discover_skills", "ensure_user_skills_dir", "skills_dirs"),
        "grants": ("SkillGrant", "SkillGrantPolicy", "grant_allowed_tools", "revoke_grant"),
        "listing": ("delta_reminder", "listing_entries", "skill_entry", "snapshot_reminder"),
        "manager": ("SkillManager",),
        "model": (
            "Skill",
            "SkillEntry",
            "SkillErrorCode",
            "SkillInvocation",
            "SkillLevel",
            "SkillProblem",
            "SkillStatus",
        ),
        "parse": ("SkillParseError", "load_skill", "parse_skill_text", "read_skill_file"),
        "tool": ("SKILL_TOOL_DESCRIPTION", "SKILL_TOOL_NAME", "SkillTool", "SkillToolResult"),
        "touched": ("touched_paths",),
        "watch": ("watch_skills",),
    },
    globals(),
)
__all__, __getattr__, __dir__ = _NAMES.all, _NAMES.getattr, _NAMES.dir


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from app.context.skills.activation import SkillActivator, resolve_project_relative_path
    from app.context.skills.content import build_skill_llm_content, unload_placeholder
    from app.context.skills.discovery import Discovery, SkillsDir, discover_skills, ensure_user_skills_dir, skills_dirs
    from app.context.skills.grants import SkillGrant, SkillGrantPolicy, grant_allowed_tools, revoke_grant
    from app.context.skills.listing import delta_reminder, listing_entries, skill_entry, snapshot_reminder
    from app.context.skills.manager import SkillManager
    from app.context.skills.model import (
        Skill,
        SkillEntry,
        SkillErrorCode,
        SkillInvocation,
        SkillLevel,
        SkillProblem,
        SkillStatus,
    )  # noqa: F401
    from app.context.skills.parse import SkillParseError, load_skill, parse_skill_text, read_skill_file
    from app.context.skills.tool import SKILL_TOOL_DESCRIPTION, SKILL_TOOL_NAME, SkillTool, SkillToolResult
    from app.context.skills.touched import touched_paths
    from app.context.skills.watch import watch_skills
