"""Writes to the agent's own controls always ask, short of yolo, and are never remembered as "always"."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.tools.agent_controls import REASON, names_control
from app.core.tools.edit import EditTool
from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy
from app.core.tools.shell import ShellTool
from app.core.tools.write_file import WriteFileTool

ALLOW, ASK, DENY = PermissionDecision.ALLOW, PermissionDecision.ASK, PermissionDecision.DENY
write, edit, shell = WriteFileTool(), EditTool(), ShellTool()

CONTROLS = [
    ".qwen/settings.yaml",
    ".qwen/settings.json",
    "sub/.qwen/settings.yaml",
    ".qwen/skills/review/SKILL.md",
    ".qwen/rules/style.md",
    ".agents/skills/x/SKILL.md",
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    "QWEN.md",
    "AGENTS.md",
    "CLAUDE.md",
    "docs/deep/AGENTS.md",
    "qwen.md",
    ".GIT/config",
    "./.git/config",
    "src/../.git/config",
]
NOT_CONTROLS = ["src/app.py", ".qwen/memory/x.md", "docs/QWEN.md.bak", "gitconfig", ".github/workflows/ci.yml", "agents.py"]


@pytest.mark.parametrize("path", CONTROLS)
@pytest.mark.parametrize(("mode", "decision"), [(ApprovalMode.DEFAULT, ASK), (ApprovalMode.AUTO_EDIT, ASK), (ApprovalMode.YOLO, ALLOW), (ApprovalMode.PLAN, DENY)])
def test_writing_a_control_asks_in_every_mode_short_of_yolo(path: str, mode: ApprovalMode, decision: PermissionDecision, tmp_path: Path) -> None:
    policy = PermissionPolicy(allow=["write_file", "edit"], mode=mode, root=tmp_path)
    for tool, args in ((write, {"path": path, "content": "x"}), (edit, {"path": path, "old_string": "a", "new_string": "b"})):
        got, reason = policy.decide(tool, args)
        assert got is decision, (path, mode, reason)
        if decision is ASK:
            assert reason == REASON


@pytest.mark.parametrize("path", NOT_CONTROLS)
def test_other_files_follow_the_mode(path: str, tmp_path: Path) -> None:
    policy = PermissionPolicy(mode=ApprovalMode.AUTO_EDIT, root=tmp_path)
    assert policy.decide(write, {"path": path, "content": "x"})[0] is ALLOW


def test_an_absolute_path_and_a_symlink_to_a_control_ask_too(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (tmp_path / "innocent.txt").symlink_to(tmp_path / ".git" / "config")
    policy = PermissionPolicy(mode=ApprovalMode.AUTO_EDIT, root=tmp_path)
    assert policy.decide(write, {"path": str(tmp_path / ".git" / "config"), "content": "x"})[0] is ASK
    assert policy.decide(write, {"path": "innocent.txt", "content": "x"})[0] is ASK
    assert names_control(str(Path.home() / ".qwen" / "settings.json"), tmp_path)


def test_always_is_never_remembered_for_a_control(tmp_path: Path) -> None:
    policy = PermissionPolicy(mode=ApprovalMode.DEFAULT, root=tmp_path)
    assert policy.allow_for_session(write, {"path": ".qwen/settings.yaml", "content": "x"}) == []
    assert policy.session_rules == []
    assert policy.allow_for_session(shell, {"command": "echo x > .git/config"}) == []
    assert policy.allow_for_session(write, {"path": "src/a.py", "content": "x"}) == ["write_file"]
    assert policy.decide(write, {"path": "QWEN.md", "content": "x"}) == (ASK, REASON)


@pytest.mark.parametrize(
    "command",
    [
        "echo 'approval_mode: yolo' > .qwen/settings.yaml",
        "cat x >> .git/config",
        "cp evil .git/hooks/pre-commit",
        "ln -sf ../evil .git/hooks/post-checkout",
        "sed -i s/ask/never/ QWEN.md",
        "tee AGENTS.md < x",
        "mv x .agents/skills/y/SKILL.md",
        "git config core.hooksPath hooks",
        "git config --global core.pager 'sh -c x'",
        "cd .git && touch hooks/x",
        "cp x .g*/config",
        "cp x $TARGET",
        "bash -c 'echo x > .qwen/settings.json'",
        "python -c 'x' --out=.git/config",
    ],
)
def test_shell_commands_that_may_write_a_control_ask_even_when_allowed(command: str, tmp_path: Path) -> None:
    policy = PermissionPolicy(allow=["run_shell_command(*)"], mode=ApprovalMode.AUTO_EDIT, root=tmp_path)
    decision, reason = policy.decide(shell, {"command": command})
    assert decision is ASK, (command, reason)
    assert "always ask" in reason
    assert PermissionPolicy(allow=["run_shell_command(*)"], mode=ApprovalMode.YOLO, root=tmp_path).decide(shell, {"command": command})[0] is ALLOW


@pytest.mark.parametrize("command", ["cat .git/config", "git log -3 -- QWEN.md", "grep -n rule AGENTS.md", "ls .qwen/skills"])
def test_reading_a_control_is_not_a_write(command: str, tmp_path: Path) -> None:
    policy = PermissionPolicy(allow=["run_shell_command(*)"], root=tmp_path)
    assert policy.decide(shell, {"command": command})[0] is ALLOW


def test_the_users_config_directory_is_a_control_as_a_whole(tmp_path: Path) -> None:
    from app.paths import user_config_dir

    config = user_config_dir()  # under this test's AGENTCTX_HOME
    policy = PermissionPolicy(allow=["run_shell_command(*)"], mode=ApprovalMode.AUTO_EDIT, root=tmp_path)
    for path in (config / "settings.yaml", config / "trusted-folders.json", config / "skills" / "x" / "SKILL.md"):
        assert names_control(str(path), tmp_path)
        assert policy.decide(shell, {"command": f"cp x {path}"}) == (ASK, REASON)
    assert not names_control(str(tmp_path / "config" / "settings.yaml.txt"), tmp_path)
