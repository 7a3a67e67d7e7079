"""The skills listing as plain text (the CLI's `skills list`; no Textual needed)."""

from __future__ import annotations

from itertools import groupby

from app.context.skills import SkillManager, SkillStatus

MARKS = {
    SkillStatus.AVAILABLE: ("●", "available"),
    SkillStatus.WAITING: ("◌", "waiting for a matching file"),
    SkillStatus.USER_ONLY: ("○", "user-only"),
    SkillStatus.DISABLED: ("✗", "disabled"),
    SkillStatus.SHADOWED: ("◐", "shadowed"),
    SkillStatus.ERROR: ("!", "error"),
}
LEVEL_TITLES = {"project": "Project", "user": "User", "bundled": "Bundled", None: "Other"}


def skills_text(manager: SkillManager) -> str:
    """The same listing as plain text, for `agentctx-tui skills list`."""
    lines: list[str] = []
    for level, entries in groupby(manager.skills, key=lambda e: e.level.value if e.level else None):
        lines.append(f"{LEVEL_TITLES.get(level, level)}:")
        for entry in entries:
            mark, label = MARKS.get(entry.status, ("?", str(entry.status)))
            extra = f" (activated by {manager.activated_by[entry.name]})" if entry.name in manager.activated_by else ""
            lines.append(f"  {mark} {entry.name:<24} {label}{extra}")
            if entry.skill and entry.skill.description:
                lines.append(f"      {entry.skill.description[:110]}")
            if entry.message:
                lines.append(f"      {entry.message}")
    return "\n".join(lines) or "No skills found."
