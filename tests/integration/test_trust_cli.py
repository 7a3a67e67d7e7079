"""`agentctx-tui trust|untrust [PATH]`, `hooks trust` as their alias, and `permissions check`,
run as the real program in a real folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from app.paths import Paths
from app.trust import FolderTrust

ROOT = Path(__file__).resolve().parents[2]


def agentctx(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, env=env, input="", capture_output=True, text=True, timeout=60)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def _project(repo: Path, data: dict) -> None:
    (repo / ".qwen").mkdir(exist_ok=True)
    (repo / ".qwen" / "settings.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def _check(repo: Path, *args: str) -> dict:
    result = agentctx(["permissions", "check", *args, "--json"], repo)
    assert result.returncode == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict.pop("sandbox").startswith("sandbox: "), "it says what contains unasked commands"
    return verdict


def test_trust_and_untrust_print_what_the_folder_changes(repo: Path) -> None:
    _project(repo, {"approval_mode": "yolo", "permissions": {"allow": ["write_file"]}})
    result = agentctx(["trust"], repo / "src")  # the project root, from a folder inside it
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"Trusted {repo.resolve()} (and every folder under it).",
        "Its project layer now applies:",
        "  - approval mode: yolo",
        "  - permissions allow: write_file",
    ]
    paths = Paths.for_cwd(repo)
    assert FolderTrust(paths.config_dir).state(repo) == "trusted"
    result = agentctx(["untrust"], repo)
    assert result.stdout.startswith(f"Not trusted: {repo.resolve()}.\nIts project layer is ignored:")
    assert FolderTrust(paths.config_dir).state(repo) == "declined"


def test_trusting_a_parent_covers_the_repositories_under_it(repo: Path) -> None:
    _project(repo, {"approval_mode": "auto-edit"})
    parent = repo.parent
    result = agentctx(["trust", str(parent)], repo)
    assert result.returncode == 0 and f"Trusted {parent.resolve()}" in result.stdout
    assert _check(repo, "write_file(src/a.py)")["decision"] == "allow", "auto-edit from the now trusted project layer"


def test_hooks_trust_is_an_alias_of_trust(repo: Path) -> None:
    _project(repo, {"hooks": {"Stop": [{"command": "echo done"}]}})
    result = agentctx(["hooks", "trust"], repo)
    assert result.returncode == 0 and "hooks (1 command run on events): Stop: echo done" in result.stdout
    listing = agentctx(["hooks", "list"], repo)
    assert "Project folder trust: trusted" in listing.stdout and "Stop: echo done" in listing.stdout
    agentctx(["hooks", "untrust"], repo)
    listing = agentctx(["hooks", "list"], repo)
    assert "not trusted: its project hooks are not loaded" in listing.stdout


def test_a_folder_that_brings_nothing_says_so(repo: Path) -> None:
    result = agentctx(["trust"], repo)
    assert "It brings no project settings, hooks or tool grants." in result.stdout


def test_trust_of_a_missing_folder_is_a_usage_error(repo: Path) -> None:
    result = agentctx(["trust", str(repo / "nope")], repo)
    assert result.returncode == 2 and "is not a directory" in result.stderr


def test_permissions_check_follows_the_settings_and_the_mode(repo: Path) -> None:
    user = Paths.for_cwd(repo).user_settings_file
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(yaml.safe_dump({"permissions": {"deny": ["run_shell_command(rm *)"], "allow": ["run_shell_command(npm test)"]}}), encoding="utf-8")
    assert _check(repo, "run_shell_command(npm test)") == {"decision": "allow", "read_only": False, "reason": "allowed by rule run_shell_command(npm test)"}
    assert _check(repo, "run_shell_command(git status && rm -rf x)")["decision"] == "deny"
    assert _check(repo, "run_shell_command(rm -rf x)", "--mode", "yolo")["decision"] == "deny", "deny holds in yolo"
    assert _check(repo, "write_file(src/a.py)")["decision"] == "ask"
    assert _check(repo, "write_file(src/a.py)", "--mode", "auto-edit")["decision"] == "allow"
    assert _check(repo, "write_file(src/a.py)", "--mode", "plan")["decision"] == "deny"
    verdict = _check(repo, "read_file(src/a.py)")
    assert verdict["decision"] == "allow" and verdict["read_only"] is True


def test_permissions_check_read_only_answers_with_the_read_only_class(repo: Path) -> None:
    assert _check(repo, "run_shell_command(git log --oneline -3)", "--read-only") == {"decision": "allow", "read_only": True, "reason": "in the read-only class"}
    verdict = _check(repo, "run_shell_command(git log --output=/tmp/x)", "--read-only")
    assert verdict["decision"] == "deny" and verdict["read_only"] is False and verdict["reason"]
    assert _check(repo, "write_file(a.txt)", "--read-only")["decision"] == "deny"


def test_permissions_check_uses_the_project_layer_only_when_trusted(repo: Path) -> None:
    _project(repo, {"permissions": {"allow": ["write_file"]}})
    assert _check(repo, "write_file(src/a.py)")["decision"] == "ask"
    agentctx(["trust"], repo)
    assert _check(repo, "write_file(src/a.py)") == {"decision": "allow", "read_only": False, "reason": "allowed by rule write_file"}


def test_permissions_check_text_output_and_bad_input(repo: Path) -> None:
    result = agentctx(["permissions", "check", "run_shell_command(ls)"], repo)
    assert result.returncode == 0 and result.stdout.startswith("ask: ") and "read-only class: yes" in result.stdout
    for bad in ("nope(x)", "run_shell_command(ls", ""):
        result = agentctx(["permissions", "check", bad], repo)
        assert result.returncode == 2 and "agentctx-tui permissions:" in result.stderr, bad
