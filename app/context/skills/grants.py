"""A skill's ``allowedTools`` as session allow-rules of a :class:`PermissionPolicy`.

Contract for whoever runs the skill tool: when a call returns a
:class:`SkillInvocation` (``SkillToolResult.invocation``, or the tool's
``on_invoke`` callback), call :func:`grant_allowed_tools` with the session's
policy; keep the returned :class:`SkillGrant` and pass it to
:func:`revoke_grant` when the skill should stop granting (e.g. when it is
unloaded, or at the end of the turn if grants should not outlive it). The
rules join ``session_rules``, so deny rules, ask rules and plan mode still win
over them exactly as over an "always" answer. A rule that was already present
(granted by the person or by an earlier skill) belongs to whoever added it
first and is left in place when this grant is revoked.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.context.skills.model import SkillInvocation
from app.core.tools.permission_rules import PermissionRule, parse_rules
from app.core.tools.permissions import PermissionPolicy


@dataclass(frozen=True)
class SkillGrant:
    skill: str
    rules: tuple[PermissionRule, ...]  # only those this grant added; rules already present stay on revoke
    warnings: tuple[str, ...] = ()  # entries that are not valid rules, to tell the person


def grant_allowed_tools(policy: PermissionPolicy, invocation: SkillInvocation) -> SkillGrant:
    rules, warnings = parse_rules(invocation.allowed_tools, f'skill "{invocation.name}" allowedTools')
    added: list[PermissionRule] = []
    for rule in rules:
        if rule not in policy.session_rules:
            policy.session_rules.append(rule)
            added.append(rule)
    return SkillGrant(invocation.name, tuple(added), tuple(warnings))


def revoke_grant(policy: PermissionPolicy, grant: SkillGrant) -> None:
    for rule in grant.rules:
        if rule in policy.session_rules:
            policy.session_rules.remove(rule)
