"""Skills' allowedTools: granted per call, only read-only commands, writes only from the user's own skills
(or in a trusted folder) and never outside the project; rules of the person and plan mode still win."""

from __future__ import annotations

from pathlib import Path

from app.context.skills.grants import GRANT_REFUSED, SkillGrantPolicy, grant_allowed_tools, revoke_grant
from app.context.skills.model import SkillInvocation, SkillLevel
from app.core.tools.permissions import ApprovalMode, PermissionDecision
from app.core.tools.registry import builtin_registry

REVIEW_TOOLS = ("run_shell_command(git diff *)", "run_shell_command(git log *)", "run_shell_command(git push *)", "edit(src/**)", "bad(")
ALLOW, ASK, DENY = PermissionDecision.ALLOW, PermissionDecision.ASK, PermissionDecision.DENY
TOOLS = builtin_registry()
SHELL, EDIT = TOOLS.get("run_shell_command"), TOOLS.get("edit")


def _edit(path: str) -> dict:
    return {"path": path, "old_string": "a", "new_string": "b"}


def _invocation(level: SkillLevel, tools: tuple[str, ...], tmp_path: Path, name: str = "review") -> SkillInvocation:
    return SkillInvocation(name, level, tmp_path, "body", allowed_tools=tools)


def test_a_grant_allows_its_read_only_commands_until_revoked(tmp_path: Path) -> None:
    policy = SkillGrantPolicy(root=tmp_path, deny=["run_shell_command(git push *)"])
    assert policy.decide(SHELL, {"command": "git diff HEAD"})[0] is ASK
    grant = grant_allowed_tools(policy, _invocation(SkillLevel.BUNDLED, REVIEW_TOOLS, tmp_path))
    assert [str(rule) for rule in grant.rules] == list(REVIEW_TOOLS[:4])
    assert len(grant.warnings) == 1 and "bad(" in grant.warnings[0]
    decision, reason = policy.decide(SHELL, {"command": "git diff HEAD"})
    assert decision is ALLOW and '"review" skill' in reason
    assert policy.decide(EDIT, _edit("src/a.py"))[0] is ALLOW, "the program's own skill may grant a write in the project"
    assert policy.decide(SHELL, {"command": "git push origin"})[0] is DENY, "deny still wins"
    assert policy.decide(SHELL, {"command": "rm -rf x"})[0] is ASK, "not granted at all"
    revoke_grant(policy, grant)
    assert policy.grants == [] and policy.decide(SHELL, {"command": "git diff HEAD"})[0] is ASK


def test_a_grant_never_covers_a_command_that_writes(tmp_path: Path) -> None:
    policy = SkillGrantPolicy(root=tmp_path)
    grant_allowed_tools(policy, _invocation(SkillLevel.BUNDLED, REVIEW_TOOLS, tmp_path))
    for command in ("git log --output=/tmp/x", "git diff HEAD > out.patch", "git log; rm -rf ~"):
        decision, reason = policy.decide(SHELL, {"command": command})
        assert decision is ASK, command
    decision, reason = policy.decide(SHELL, {"command": "git log --output=/tmp/x"})
    assert GRANT_REFUSED in reason and '"review" (run_shell_command(git log *))' in reason
    assert policy.decide(SHELL, {"command": "git log --oneline -5"})[0] is ALLOW


def test_a_project_skill_grants_nothing_in_an_untrusted_folder(tmp_path: Path) -> None:
    tools = ("run_shell_command", "write_file", "edit(src/**)")
    untrusted = SkillGrantPolicy(root=tmp_path)
    grant_allowed_tools(untrusted, _invocation(SkillLevel.PROJECT, tools, tmp_path, "deploy"))
    decision, reason = untrusted.decide(EDIT, _edit("src/a.py"))
    assert decision is ASK and GRANT_REFUSED in reason and "untrusted folder" in reason
    assert untrusted.decide(TOOLS.get("write_file"), {"path": "a.txt", "content": "x"})[0] is ASK
    assert untrusted.decide(SHELL, {"command": "touch pwned"})[0] is ASK
    decision, reason = untrusted.decide(SHELL, {"command": "git status"})
    assert decision is ASK and "grants nothing" in reason, "not even a read-only command: a parser miss would run unasked"
    trusted = SkillGrantPolicy(root=tmp_path, folder_trusted=True)
    grant_allowed_tools(trusted, _invocation(SkillLevel.PROJECT, tools, tmp_path, "deploy"))
    assert trusted.decide(EDIT, _edit("src/a.py"))[0] is ALLOW
    assert trusted.decide(SHELL, {"command": "git status"})[0] is ALLOW, "trusted, a read-only command is granted"
    assert trusted.decide(SHELL, {"command": "touch pwned"})[0] is ASK, "not read-only, even when trusted"


def test_a_grant_never_covers_a_write_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    policy = SkillGrantPolicy(root=root, folder_trusted=True)
    grant_allowed_tools(policy, _invocation(SkillLevel.USER, ("edit", "write_file(**)"), tmp_path, "mine"))
    assert policy.decide(EDIT, _edit("src/a.py"))[0] is ALLOW
    for path in ("../outside.txt", str(tmp_path / "elsewhere.txt"), "/etc/passwd"):
        decision, reason = policy.decide(EDIT, _edit(path))
        assert decision is ASK and "outside the project" in reason, path


def test_the_persons_ask_rules_and_plan_mode_win_over_a_grant(tmp_path: Path) -> None:
    policy = SkillGrantPolicy(root=tmp_path, ask=["run_shell_command(git diff *)"])
    grant_allowed_tools(policy, _invocation(SkillLevel.USER, REVIEW_TOOLS, tmp_path))
    decision, reason = policy.decide(SHELL, {"command": "git diff HEAD"})
    assert decision is ASK and "git diff" in reason and GRANT_REFUSED not in reason
    plan = SkillGrantPolicy(root=tmp_path, mode=ApprovalMode.PLAN)
    grant_allowed_tools(plan, _invocation(SkillLevel.USER, REVIEW_TOOLS, tmp_path))
    assert plan.decide(SHELL, {"command": "git diff HEAD"})[0] is DENY
