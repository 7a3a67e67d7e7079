"""A skill's ``allowedTools``: calls it may make without asking, while it is loaded, within limits.

Contract for whoever runs the skill tool: when a call returns a
:class:`SkillInvocation` (``SkillToolResult.invocation``, or the tool's
``on_invoke`` callback), call :func:`grant_allowed_tools` with the session's
:class:`SkillGrantPolicy`; keep the returned :class:`SkillGrant` and pass it to
:func:`revoke_grant` when the skill should stop granting (the runtime does so at
the end of the turn).

A grant only turns the mode's default "ask" into "allow": deny rules, ask rules,
plan mode and whatever the policy asks about in every mode (protected paths)
still win. And a grant is checked per call, not per rule, because a rule such as
``run_shell_command(git log *)`` also matches ``git log --output=FILE``:

- a project skill in a folder the user has not trusted grants nothing at all, not
  even read-only commands: it is text a repository brought, and a read-only grant
  would let every miss of the shell analysis run unasked;
- a shell command is granted only when it is in the read-only class
  (:func:`read_only_refusal`), whoever wrote the skill;
- a write is granted only inside the project.

A grant that matched but was refused says so in the ask reason (the approval dialog
shows it), so the person knows why the skill's tool still asks.
"""

from __future__ import annotations

from app.dataclass import dataclass
from pathlib import Path
from typing import Any

from app.context.skills.model import SkillInvocation, SkillLevel
from app.core.tools.base import Tool, ToolKind
from app.core.tools.permission_rules import PermissionRule, parse_rules
from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy

# Marks an ask reason that holds a refused grant (the approval dialog shows such reasons).
GRANT_REFUSED = "allowedTools grant refused"
# Opens the reason of a call a grant allowed.
GRANTED = "allowed by the"
# Why a project skill's grant does nothing in a folder that is not trusted.
UNTRUSTED_GRANT = "a project skill in an untrusted folder grants nothing ('agentctx-tui trust' lifts this)"


@dataclass(frozen=True)
class SkillGrant:
    """The calls one loaded skill lets run without asking; kept until the grant is revoked."""

    skill: str
    rules: tuple[PermissionRule, ...]
    warnings: tuple[str, ...] = ()  # entries that are not valid rules, to tell the person
    level: SkillLevel = SkillLevel.PROJECT


class SkillGrantPolicy(PermissionPolicy):
    """The session's policy, plus the grants of the skills loaded this turn.

    Takes the same arguments as :class:`PermissionPolicy`, and ``folder_trusted``.
    """

    def __init__(self, *args: Any, folder_trusted: bool = False, sandbox: str = "auto", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.folder_trusted = folder_trusted
        self.sandbox = sandbox  # shell.sandbox: a granted command runs in the sandbox unless it is off
        self.grants: list[SkillGrant] = []

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[PermissionDecision, str]:
        decision, reason = super().decide(tool, args)
        if decision is not PermissionDecision.ASK or not self.grants or tool.kind is ToolKind.READ:
            return decision, reason
        if not self._only_the_mode_asks(tool, args, reason):
            return decision, reason
        refusals: list[str] = []
        for grant in self.grants:
            rule = self._matching_rule(grant, tool, args)
            if rule is None:
                continue
            refusal = self._refusal(grant, tool, args)
            if refusal is None:
                return PermissionDecision.ALLOW, f'{GRANTED} "{grant.skill}" skill\'s allowedTools ({rule})'
            refusals.append(f'"{grant.skill}" ({rule}): {refusal}')
        if refusals:
            return decision, f"{reason}; {GRANT_REFUSED}: {'; '.join(refusals)}"
        return decision, reason

    def unasked(self, tool: Tool, args: dict[str, Any]) -> bool:
        if tool.kind is not ToolKind.EXECUTE or not self.grants:
            return False
        decision, reason = self.decide(tool, args)
        return decision is PermissionDecision.ALLOW and reason.startswith(GRANTED)

    def _only_the_mode_asks(self, tool: Tool, args: dict[str, Any], reason: str) -> bool:
        """True when the ask is the mode's default and nothing else (no ask rule, no always-ask path)."""
        bare = PermissionPolicy(mode=self.mode, root=self.root).decide(tool, args)
        if bare != (PermissionDecision.ASK, reason):
            return False  # a rule of the person's (or an always-ask rule) asked
        permissive = ApprovalMode.AUTO_EDIT if tool.kind is ToolKind.EDIT else ApprovalMode.YOLO
        return PermissionPolicy(mode=permissive, root=self.root).decide(tool, args)[0] is PermissionDecision.ALLOW

    def _matching_rule(self, grant: SkillGrant, tool: Tool, args: dict[str, Any]) -> PermissionRule | None:
        for rule in grant.rules:
            if PermissionPolicy(allow=[str(rule)], root=self.root).decide(tool, args)[0] is PermissionDecision.ALLOW:
                return rule
        return None

    def _refusal(self, grant: SkillGrant, tool: Tool, args: dict[str, Any]) -> str | None:
        if grant.level is SkillLevel.PROJECT and not self.folder_trusted:
            return UNTRUSTED_GRANT
        if tool.kind is ToolKind.EXECUTE:
            from app.core.tools.shell_readonly import read_only_refusal  # the bash grammar: with the first command

            why = read_only_refusal(tool.subject(args))
            if why:
                return f"a grant covers only read-only commands, and {why}"
            if self.sandbox != "off":
                from app.core.tools.sandbox import sandbox_status

                status = sandbox_status()
                if not status.available:
                    return f"a granted command runs unasked only in a sandbox, and {status.describe()}"
            return None
        if not _inside(tool.subject(args), self.root):
            return "a grant never covers a write outside the project"
        return None


def grant_allowed_tools(policy: PermissionPolicy, invocation: SkillInvocation) -> SkillGrant:
    rules, warnings = parse_rules(invocation.allowed_tools, f'skill "{invocation.name}" allowedTools')
    grant = SkillGrant(invocation.name, tuple(rules), tuple(warnings), invocation.level)
    if isinstance(policy, SkillGrantPolicy):
        policy.grants.append(grant)
    return grant


def revoke_grant(policy: PermissionPolicy, grant: SkillGrant) -> None:
    if isinstance(policy, SkillGrantPolicy) and grant in policy.grants:
        policy.grants.remove(grant)


def _inside(subject: str, root: Path | None) -> bool:
    if root is None or not subject:
        return False
    base = Path(root).resolve()
    try:
        (base / subject).resolve().relative_to(base)
    except (ValueError, OSError, RuntimeError):
        return False
    return True
