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

# name -> the module that defines it
_HOMES: dict[str, str] = {
    "SkillActivator": "app.context.skills.activation",
    "resolve_project_relative_path": "app.context.skills.activation",
    "build_skill_llm_content": "app.context.skills.content",
    "unload_placeholder": "app.context.skills.content",
    "Discovery": "app.context.skills.discovery",
    "SkillsDir": "app.context.skills.discovery",
    "discover_skills": "app.context.skills.discovery",
    "ensure_user_skills_dir": "app.context.skills.discovery",
    "skills_dirs": "app.context.skills.discovery",
    "SkillGrant": "app.context.skills.grants",
    "SkillGrantPolicy": "app.context.skills.grants",
    "grant_allowed_tools": "app.context.skills.grants",
    "revoke_grant": "app.context.skills.grants",
    "delta_reminder": "app.context.skills.listing",
    "listing_entries": "app.context.skills.listing",
    "skill_entry": "app.context.skills.listing",
    "snapshot_reminder": "app.context.skills.listing",
    "SkillManager": "app.context.skills.manager",
    "Skill": "app.context.skills.model",
    "SkillEntry": "app.context.skills.model",
    "SkillErrorCode": "app.context.skills.model",
    "SkillInvocation": "app.context.skills.model",
    "SkillLevel": "app.context.skills.model",
    "SkillProblem": "app.context.skills.model",
    "SkillStatus": "app.context.skills.model",
    "SkillParseError": "app.context.skills.parse",
    "load_skill": "app.context.skills.parse",
    "parse_skill_text": "app.context.skills.parse",
    "read_skill_file": "app.context.skills.parse",
    "SKILL_TOOL_DESCRIPTION": "app.context.skills.tool",
    "SKILL_TOOL_NAME": "app.context.skills.tool",
    "SkillTool": "app.context.skills.tool",
    "SkillToolResult": "app.context.skills.tool",
    "touched_paths": "app.context.skills.touched",
    "watch_skills": "app.context.skills.watch",
}

__all__ = sorted(_HOMES)


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())


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
