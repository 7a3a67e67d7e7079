"""Skills: ``<skill>/SKILL.md`` folders of task instructions the model loads when it needs them.

:class:`SkillManager` is the entry point (discovery, path activation, the
``<available_skills>`` reminders, enable/disable); :class:`SkillTool` is the
model's way to load one; :func:`watch_skills` reloads the manager on change;
:func:`grant_allowed_tools` lets a loaded skill's ``allowedTools`` run
unasked, within the limits of :class:`SkillGrantPolicy`.
"""

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
)
from app.context.skills.parse import SkillParseError, load_skill, parse_skill_text, read_skill_file
from app.context.skills.tool import SKILL_TOOL_DESCRIPTION, SKILL_TOOL_NAME, SkillTool, SkillToolResult
from app.context.skills.touched import touched_paths
from app.context.skills.watch import watch_skills

__all__ = [
    "SKILL_TOOL_DESCRIPTION",
    "SKILL_TOOL_NAME",
    "Discovery",
    "Skill",
    "SkillActivator",
    "SkillEntry",
    "SkillErrorCode",
    "SkillGrant",
    "SkillGrantPolicy",
    "SkillInvocation",
    "SkillLevel",
    "SkillManager",
    "SkillParseError",
    "SkillProblem",
    "SkillStatus",
    "SkillTool",
    "SkillToolResult",
    "SkillsDir",
    "build_skill_llm_content",
    "delta_reminder",
    "discover_skills",
    "ensure_user_skills_dir",
    "grant_allowed_tools",
    "listing_entries",
    "load_skill",
    "parse_skill_text",
    "read_skill_file",
    "resolve_project_relative_path",
    "revoke_grant",
    "skill_entry",
    "skills_dirs",
    "snapshot_reminder",
    "touched_paths",
    "unload_placeholder",
    "watch_skills",
]
