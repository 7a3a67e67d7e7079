"""The red-team pass's parser holes, through the permission engine and the read-only class.

Each hidden program here is ``rm``; a deny rule on it must hold in yolo, an allow rule like
``cat *`` / ``echo *`` / ``git status *`` must not let it through, and the read-only class
(which runs with no question) must refuse the line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy
from app.core.tools.shell import ShellTool
from app.core.tools.shell_readonly import read_only_refusal

ALLOW, ASK, DENY = PermissionDecision.ALLOW, PermissionDecision.ASK, PermissionDecision.DENY
shell = ShellTool()

HIDDEN_RM = [
    "cat <<EOF\n`rm -rf x`\nEOF",
    "cat <<-EOF\n\t`rm -rf x`\n\tEOF",
    "cat <<EOF\n${x:-`rm -rf x`}\nEOF",
    "echo ${x:-`rm -rf x`}",
    'echo "${x:=`rm -rf x`}"',
    "echo ${x:-${y:-`rm -rf x`}}",
    "git status ${x:+`rm -rf x`}",
    "printf -v 'a[$(rm -rf x)]' %s 1",
    "echo x; read 'a[`rm -rf x`]' <<< 1",
    "[ -v 'a[$(rm -rf x)]' ]",
    "y='a[$(rm -rf x)]'; echo ${x:y}",
    "y='a[$(rm -rf x)]'; echo ${b[y]}",
    "y='a[$(rm -rf x)]'; echo ${!y}",
    "y='$(rm -rf x)'; echo ${y@P}",
    "let 'y=a[$(rm -rf x)]'",
    "declare -n p=PATH; p=./bin; ls",
    "printf -v PATH %s ./bin; ls",
]


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_a_deny_rule_holds_in_yolo(command: str, tmp_path: Path) -> None:
    policy = PermissionPolicy(deny=["run_shell_command(rm *)"], mode=ApprovalMode.YOLO, root=tmp_path)
    decision, reason = policy.decide(shell, {"command": command})
    assert decision is DENY, (command, reason)


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_an_allow_rule_does_not_let_it_through(command: str, tmp_path: Path) -> None:
    rules = ["run_shell_command(cat *)", "run_shell_command(echo *)", "run_shell_command(git status *)",
             "run_shell_command(printf *)", "run_shell_command(ls)", "run_shell_command([ *)"]  # fmt: skip
    decision, reason = PermissionPolicy(allow=rules, root=tmp_path).decide(shell, {"command": command})
    assert decision is ASK, (command, reason)


@pytest.mark.parametrize("command", HIDDEN_RM + ["printf -v PATH x", "printf -vPATH x"])
def test_the_read_only_class_refuses_it(command: str, tmp_path: Path) -> None:
    assert read_only_refusal(command, cwd=tmp_path) is not None


@pytest.mark.parametrize("command", ["cat <<'EOF'\n$(rm -rf x) `rm`\nEOF", 'cat <<"EOF"\n`rm x`\nEOF', "printf '%s\\n' -v", "echo '`rm x`'"])
def test_text_bash_does_not_expand_stays_read_only(command: str, tmp_path: Path) -> None:
    assert read_only_refusal(command, cwd=tmp_path) is None
    assert PermissionPolicy(deny=["run_shell_command(rm *)"], root=tmp_path).decide(shell, {"command": command})[0] is not DENY


@pytest.mark.parametrize("command", ["cp x $D/conf*", "cp x $(echo .gi)t/conf*", "cp x ${D}/*"])
def test_a_glob_known_only_when_it_runs_is_treated_as_naming_a_control(command: str, tmp_path: Path) -> None:
    policy = PermissionPolicy(allow=["run_shell_command(*)"], mode=ApprovalMode.AUTO_EDIT, root=tmp_path)
    decision, reason = policy.decide(shell, {"command": command})
    assert decision is ASK and "always ask" in reason, (command, reason)
