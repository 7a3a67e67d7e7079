"""Permission rules and the decision order: deny > plan > ask > allow/session > mode default."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.tools.edit import EditTool
from app.core.tools.permission_rules import PermissionRule, RuleSyntaxError, parse_rule, parse_rules
from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy
from app.core.tools.read_file import ReadFileTool
from app.core.tools.shell import ShellTool
from app.core.tools.write_file import WriteFileTool

ALLOW, ASK, DENY = PermissionDecision.ALLOW, PermissionDecision.ASK, PermissionDecision.DENY
read, edit, write, shell = ReadFileTool(), EditTool(), WriteFileTool(), ShellTool()


def _cmd(command: str) -> dict[str, str]:
    return {"command": command}


def _edit(path: str) -> dict[str, str]:
    return {"path": path, "old_string": "a", "new_string": "b"}


@pytest.mark.parametrize(
    ("mode", "read_decision", "edit_decision", "shell_decision"),
    [
        (ApprovalMode.DEFAULT, ALLOW, ASK, ASK),
        (ApprovalMode.AUTO_EDIT, ALLOW, ALLOW, ASK),
        (ApprovalMode.YOLO, ALLOW, ALLOW, ALLOW),
        (ApprovalMode.PLAN, ALLOW, DENY, DENY),
    ],
)
def test_mode_defaults(
    mode: ApprovalMode,
    read_decision: PermissionDecision,
    edit_decision: PermissionDecision,
    shell_decision: PermissionDecision,
) -> None:
    policy = PermissionPolicy(mode=mode)
    assert policy.decide(read, {"path": "a"})[0] is read_decision
    assert policy.decide(edit, _edit("a"))[0] is edit_decision
    assert policy.decide(shell, _cmd("ls"))[0] is shell_decision


def test_mode_default_reasons() -> None:
    assert PermissionPolicy().decide(edit, _edit("a")) == (ASK, "file edits need approval")
    assert PermissionPolicy(mode=ApprovalMode.PLAN).decide(write, {"path": "a"}) == (
        DENY,
        "plan mode: only read-only tools",
    )
    assert PermissionPolicy(mode=ApprovalMode.YOLO).decide(shell, _cmd("ls"))[1] == "yolo mode: everything is allowed"


@pytest.mark.parametrize("mode", list(ApprovalMode))
def test_deny_rules_win_in_every_mode(mode: ApprovalMode) -> None:
    policy = PermissionPolicy(allow=["read_file"], ask=["read_file"], deny=["read_file(secrets/**)"], mode=mode)
    assert policy.decide(read, {"path": "secrets/key.pem"}) == (DENY, "denied by rule read_file(secrets/**)")
    assert policy.decide(read, {"path": "src/a.py"})[0] is not DENY


def test_plan_mode_denies_non_read_tools_even_when_allowed() -> None:
    policy = PermissionPolicy(allow=["edit", "run_shell_command"], mode=ApprovalMode.PLAN)
    assert policy.decide(edit, _edit("a.py")) == (DENY, "plan mode: only read-only tools")
    assert policy.decide(shell, _cmd("ls"))[0] is DENY


def test_ask_rules_beat_allow_rules_except_in_yolo() -> None:
    policy = PermissionPolicy(allow=["edit"], ask=["edit(*.lock)"])
    assert policy.decide(edit, _edit("poetry.lock")) == (ASK, "rule edit(*.lock) asks for approval")
    assert policy.decide(edit, _edit("main.py")) == (ALLOW, "allowed by rule edit")
    policy.mode = ApprovalMode.YOLO
    assert policy.decide(edit, _edit("poetry.lock"))[0] is ALLOW


def test_ask_rules_apply_to_read_tools_in_plan_and_auto_edit_modes() -> None:
    for mode in (ApprovalMode.PLAN, ApprovalMode.AUTO_EDIT):
        policy = PermissionPolicy(ask=["read_file(.env)"], mode=mode)
        assert policy.decide(read, {"path": ".env"})[0] is ASK
        assert policy.decide(read, {"path": "x.py"})[0] is ALLOW


def test_allow_rules_allow_what_the_mode_would_ask() -> None:
    policy = PermissionPolicy(allow=["run_shell_command(pytest *)", "write_file(docs/**)"])
    assert policy.decide(shell, _cmd("pytest -q tests")) == (ALLOW, "allowed by rule run_shell_command(pytest *)")
    assert policy.decide(shell, _cmd("pytestx"))[0] is ASK
    assert policy.decide(write, {"path": "docs/guide/intro.md"})[0] is ALLOW
    assert policy.decide(write, {"path": "src/intro.md"})[0] is ASK


def test_path_rules_use_the_double_star_matcher() -> None:
    policy = PermissionPolicy(deny=["edit(*.md)", "edit(build/**)"])
    assert policy.decide(edit, _edit("README.md"))[0] is DENY
    assert policy.decide(edit, _edit("docs/README.md"))[0] is ASK  # "*" stays in one directory
    assert policy.decide(edit, _edit("build/out/x.js"))[0] is DENY
    assert policy.decide(edit, _edit("./build/../build/x"))[0] is DENY  # subjects are normalized


def test_absolute_paths_match_root_relative_rules(tmp_path: Path) -> None:
    policy = PermissionPolicy(deny=["edit(secrets/**)"], root=tmp_path)
    assert policy.decide(edit, _edit(str(tmp_path / "secrets" / "k")))[0] is DENY
    without_root = PermissionPolicy(deny=["edit(secrets/**)"])
    assert without_root.decide(edit, _edit(str(tmp_path / "secrets" / "k")))[0] is ASK


def test_shell_star_spans_slashes() -> None:
    policy = PermissionPolicy(allow=["run_shell_command(cat *)"])
    assert policy.decide(shell, _cmd("cat src/app/main.py"))[0] is ALLOW


def test_shell_allow_rules_must_cover_every_part_of_a_command() -> None:
    policy = PermissionPolicy(allow=["run_shell_command(git *)", "run_shell_command(wc *)"])
    assert policy.decide(shell, _cmd("git log | wc -l"))[0] is ALLOW
    assert policy.decide(shell, _cmd("git status && rm -rf ~"))[0] is ASK
    assert policy.decide(shell, _cmd("git log $(rm -rf ~)"))[0] is ASK
    assert policy.decide(shell, _cmd("git log > out.txt"))[0] is ASK  # writes a file
    assert policy.decide(shell, _cmd("git log 2>/dev/null"))[0] is ALLOW
    assert policy.decide(shell, _cmd("git log 'unterminated"))[0] is ASK


def test_shell_deny_rules_fire_on_any_part() -> None:
    policy = PermissionPolicy(deny=["run_shell_command(rm *)"], mode=ApprovalMode.YOLO)
    for command in ("rm -rf build", "ls; rm -rf build", "echo $(rm -rf x)", "FOO=1 rm x", "ls | rm x"):
        assert policy.decide(shell, _cmd(command)) == (DENY, "denied by rule run_shell_command(rm *)"), command
    assert policy.decide(shell, _cmd("echo 'rm -rf x'"))[0] is ALLOW  # quoted text is not a command


def test_session_always_for_shell_allows_the_program() -> None:
    policy = PermissionPolicy()
    added = policy.allow_for_session(shell, _cmd("git status"))
    assert added == ["run_shell_command(git *)", "run_shell_command(git)"]
    assert policy.decide(shell, _cmd("git log -3")) == (
        ALLOW,
        "allowed for this session (run_shell_command(git *))",
    )
    assert policy.decide(shell, _cmd("git"))[0] is ALLOW
    assert policy.decide(shell, _cmd("gitk"))[0] is ASK
    assert policy.decide(shell, _cmd("ls"))[0] is ASK
    assert policy.allow_for_session(shell, _cmd("git diff")) == []  # already remembered


def test_session_always_covers_each_program_of_a_compound_command() -> None:
    policy = PermissionPolicy(allow=["run_shell_command(cd *)"])
    added = policy.allow_for_session(shell, _cmd("cd app && npm test"))
    assert "run_shell_command(npm *)" in added
    assert policy.decide(shell, _cmd("cd app && npm test"))[0] is ALLOW


def test_session_always_escapes_wildcards_and_keeps_env_prefixed_commands_exact() -> None:
    policy = PermissionPolicy()
    # Quoted: unquoted, bash would glob "./run[1].sh" into ./run1.sh, so it is not analysed at all.
    assert policy.allow_for_session(shell, _cmd("./run[1].sh")) == []
    policy.allow_for_session(shell, _cmd("'./run[1].sh'"))
    assert policy.decide(shell, _cmd("'./run[1].sh' --fast"))[0] is ALLOW
    assert policy.decide(shell, _cmd("./run1.sh"))[0] is ASK
    policy.allow_for_session(shell, _cmd("DEBUG=1 make test"))
    assert policy.decide(shell, _cmd("DEBUG=1 make test"))[0] is ALLOW
    assert policy.decide(shell, _cmd("make install"))[0] is ASK


def test_session_always_for_file_tools_allows_the_tool() -> None:
    policy = PermissionPolicy()
    assert policy.allow_for_session(edit, _edit("a.py")) == ["edit"]
    assert policy.decide(edit, _edit("anything/else.py"))[0] is ALLOW
    assert policy.decide(write, {"path": "a.py", "content": ""})[0] is ASK


def test_session_always_does_not_override_deny_or_plan() -> None:
    policy = PermissionPolicy(deny=["edit(.env)"])
    policy.allow_for_session(edit, _edit("a.py"))
    assert policy.decide(edit, _edit(".env"))[0] is DENY
    policy.mode = ApprovalMode.PLAN
    assert policy.decide(edit, _edit("a.py"))[0] is DENY


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("edit", PermissionRule("edit")),
        ("  edit  ", PermissionRule("edit")),
        ("edit(src/**)", PermissionRule("edit", "src/**")),
        ("run_shell_command(git *)", PermissionRule("run_shell_command", "git *")),
        ("run_shell_command(echo (hi))", PermissionRule("run_shell_command", "echo (hi)")),
        ("mcp.server:tool-x", PermissionRule("mcp.server:tool-x")),
    ],
)
def test_parse_good_rules(text: str, rule: PermissionRule) -> None:
    assert parse_rule(text) == rule


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("edit(src", "does not end with ')'"),
        ("edit)", "without a '('"),
        ("edit(a))", "unbalanced"),
        ("(src/**)", "no tool name"),
        ("edit()", "empty pattern"),
        ("", "empty"),
        ("two words", "not a tool name"),
        (42, "must be a string"),
    ],
)
def test_parse_malformed_rules(text: object, message: str) -> None:
    with pytest.raises(RuleSyntaxError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_rule(text)


def test_malformed_rules_are_warned_about_and_skipped() -> None:
    rules, warnings = parse_rules(["edit", "edit(", "run_shell_command(ls)"], "allow")
    assert [str(rule) for rule in rules] == ["edit", "run_shell_command(ls)"]
    assert warnings == ["ignored allow rule 'edit(': 'edit(' does not end with ')'"]
    policy = PermissionPolicy(allow=["run_shell_command(ls)", "run_shell_command(ls"], deny=["(x)"])
    assert len(policy.warnings) == 2
    assert policy.decide(shell, _cmd("ls"))[0] is ALLOW


def test_modes_from_settings_strings() -> None:
    assert PermissionPolicy(mode="auto-edit").mode is ApprovalMode.AUTO_EDIT  # type: ignore[arg-type]
    bogus = PermissionPolicy(mode="sometimes")  # type: ignore[arg-type]
    assert bogus.mode is ApprovalMode.DEFAULT
    assert "unknown approval mode 'sometimes'" in bogus.warnings[0]
    assert [m.value for m in ApprovalMode] == ["default", "auto-edit", "yolo", "plan"]
