"""/permissions: the approval mode and every active rule, each with where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.config import Settings
    from app.core.tools.permissions import PermissionPolicy


def rules_report(settings: Settings, policy: PermissionPolicy, *, folder_trusted: bool) -> str:
    """/permissions: the mode and every active rule, each with where it came from."""
    sources = settings.permission_sources
    mode = getattr(policy.mode, "value", policy.mode)
    lines = [
        f"Approval mode: {mode}" + (f" (from {sources['approval_mode']})" if "approval_mode" in sources else " (the built-in default)"),
        f"This folder: {'trusted (its project layer applies)' if folder_trusted else 'not trusted (its project layer is ignored; /trust to change)'}",
        "Deny beats ask beats allow; a rule on a command matches every command of a pipeline or list.",
        sandbox_line(settings.shell.sandbox),
    ]
    for kind, title in (("deny", "Deny rules"), ("ask", "Ask rules"), ("allow", "Allow rules")):
        rules = getattr(settings.permissions, kind)
        lines += ["", title]
        origin = sources.get(kind, "settings")
        lines += [f"  {rule}    ← {origin}" for rule in rules] or ["  (none)"]
    lines += ["", 'Session "always" answers']
    lines += [f"  {rule}    ← your answer in this session" for rule in policy.session_rules] or ["  (none)"]
    grants = getattr(policy, "grants", [])
    lines += ["", "Skill grants (while the skill is loaded, this turn)"]
    lines += [f'  {rule}    ← the "{grant.skill}" skill ({grant.level.value}), {_grant_scope(grant, folder_trusted)}' for grant in grants for rule in grant.rules] or ["  (none)"]
    lines += ["", "Added by the program"]
    if policy.extra_allow:
        tools = sorted({rule.tool for rule in policy.extra_allow})
        lines.append(f"  allow {', '.join(tools)} inside the project and user memory directories")
    lines += [f"  always ask {rule}    ← team memory is committed to the repository" for rule in policy.always_ask]
    if not policy.extra_allow and not policy.always_ask:
        lines.append("  (none)")
    return "\n".join(lines)


def sandbox_line(mode: str) -> str:
    """What contains the commands the program runs on its own (shell.sandbox), or why nothing does."""
    if mode == "off":
        return "sandbox: off (shell.sandbox: off): commands the program runs on its own are not contained"
    from app.core.tools.sandbox import sandbox_status

    return f"{sandbox_status().describe()} (shell.sandbox: {mode})"


def _grant_scope(grant: object, folder_trusted: bool) -> str:
    """What the grant really covers, so the listing is true to what is applied."""
    if getattr(getattr(grant, "level", None), "value", None) == "project" and not folder_trusted:
        return "grants nothing: the folder is not trusted"
    return "read-only commands, and writes inside the project"
