"""What a folder's project layer changes: the lines `trust`/`untrust` and the TUI's /trust show before the answer.

Shared by app/cli/trust.py and app/tui/controllers/trust.py, so it lives below both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.context.skills.model import Skill
    from app.paths import Paths


def folder_changes(paths: Paths) -> list[str]:
    """What the folder's project layer changes, whether or not it is trusted (settings errors included)."""
    from app.config import SettingsError, load_settings
    from app.project_layer import grant_lines

    try:
        changes = list(load_settings(paths, trusted=False).project_layer.changes)
    except SettingsError as error:  # the user's own file is broken: say so, the answer is recorded anyway
        changes = [f"(the user settings cannot be read: {error})"]
    return changes + grant_lines(project_skills(paths))


def project_skills(paths: Paths) -> list[Skill]:
    from app.context.skills.discovery import discover_skills
    from app.context.skills.model import SkillLevel
    from app.runtime import _home

    return list(discover_skills(paths.project_root, paths.config_dir, _home(), levels=(SkillLevel.PROJECT,)).skills)
