"""Attacks by a repository's .git/config on the git the program runs unasked, and the guard.

Each case sets one key of a real repository's config to a command that writes a marker file,
runs what the program runs on its own (the read-only shell class, the start-up snapshot), and
checks the marker is absent and git's output is still right. Removing the key's override from
app/core/tools/git_guard.py (or the --no-ext-diff shim) makes its case fail.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.context.prompt.git_info import read_git_info
from app.core.tools.base import ToolContext
from app.core.tools.shell import ShellTool
from app.core.tools.shell_readonly import read_only_refusal

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SIGNATURE = "-----BEGIN PGP SIGNATURE-----\n\n iQEzBAABCAAdFiEE\n =abcd\n -----END PGP SIGNATURE-----"


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"})  # fmt: skip
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "a@example.invalid")
    _git(root, "config", "user.name", "A")
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil\n", encoding="utf-8")
    (root / "f.txt").write_text("a\n", encoding="utf-8")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    # A signed-looking commit on top: git log --show-signature / log.showSignature runs gpg.program for it.
    tree = _git(root, "rev-parse", "HEAD^{tree}").strip()
    parent = _git(root, "rev-parse", "HEAD").strip()
    body = (f"tree {tree}\nparent {parent}\nauthor A <a@example.invalid> 1700000000 +0000\n"
            f"committer A <a@example.invalid> 1700000000 +0000\ngpgsig {SIGNATURE}\n\nsigned\n")  # fmt: skip
    signed = _git(root, "hash-object", "-t", "commit", "-w", "--stdin", stdin=body).strip()
    _git(root, "update-ref", "HEAD", signed)
    (root / "f.txt").write_text("a\nb\n", encoding="utf-8")
    return root


def _arm(repo: Path, key: str, extra: dict[str, str] | None = None) -> Path:
    marker = repo.parent / "MARKER"
    # A script, not a shell line: gpg.program is run directly, the others through the shell.
    script = repo.parent / "payload"
    script.write_text(f"#!/bin/sh\necho {key} >> '{marker}'\ncat >/dev/null\n", encoding="utf-8")
    script.chmod(0o755)
    _git(repo, "config", key, str(script))
    for name, value in (extra or {}).items():
        _git(repo, "config", name, value)
    return marker


def _read_only(repo: Path, command: str) -> str:
    assert read_only_refusal(command, cwd=repo) is None, command
    result = asyncio.run(ShellTool().run({"command": command}, ToolContext(root=repo, read_only_shell=True)))
    return result.output


CASES = [
    ("core.fsmonitor", {}, "git status --short", " M f.txt"),
    ("filter.evil.clean", {}, "git diff", "+b"),
    ("diff.external", {}, "git diff", "+b"),
    ("diff.evil.command", {}, "git diff", "+b"),
    ("diff.evil.textconv", {}, "git show HEAD~1", "+a"),
    ("diff.evil.textconv", {}, "git log -p -1 HEAD~1", "+a"),
    ("filter.evil.process", {"filter.evil.required": "false"}, "git diff", "+b"),
]


@pytest.mark.parametrize(("key", "extra", "command", "expected"), CASES)
def test_the_read_only_shell_runs_none_of_the_repositorys_programs(
    key: str, extra: dict[str, str], command: str, expected: str, repo: Path
) -> None:
    marker = _arm(repo, key, extra)
    output = _read_only(repo, command)
    assert not marker.exists(), f"{key} ran: {marker.read_text()}"
    assert expected in output, output


@pytest.mark.parametrize("key", ["core.fsmonitor", "filter.evil.clean"])
def test_the_start_up_snapshot_runs_none_of_them(key: str, repo: Path) -> None:
    marker = _arm(repo, key)
    # Same size, and as new as the index: git cannot trust the stat data and runs the clean filter.
    (repo / "f.txt").write_text("c\n", encoding="utf-8")
    stat = (repo / "f.txt").stat()
    os.utime(repo / ".git" / "index", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    info = read_git_info(repo)
    assert not marker.exists(), f"{key} ran: {marker.read_text()}"
    assert info is not None and info.status is not None and any("f.txt" in line for line in info.status)


def test_a_read_only_git_allowed_by_a_grant_or_rule_runs_guarded_too(repo: Path) -> None:
    # A skill's allowedTools grant or an allow rule runs the command outside the read-only mode.
    marker = _arm(repo, "diff.external")
    result = asyncio.run(ShellTool().run({"command": "git diff"}, ToolContext(root=repo)))
    assert not marker.exists()
    assert "+b" in result.output


def test_without_the_guard_the_attack_is_real(repo: Path) -> None:
    # The same repository, the plain git a person would run: the marker is written.
    marker = _arm(repo, "diff.external")
    subprocess.run(["git", "-C", str(repo), "diff"], capture_output=True, check=False)
    assert marker.exists()


@pytest.mark.parametrize(
    "command",
    ["git config --global --list", "git config --system -l", "git config --file ../x --list", "git config -f /etc/gitconfig --get a.b",
     "git config --list", "git config --get-regexp url", "git --help", "git help log"],
)  # fmt: skip
def test_reading_config_outside_the_project_or_git_help_leaves_the_read_only_class(command: str, tmp_path: Path) -> None:
    assert read_only_refusal(command, cwd=tmp_path) is not None


def test_reading_the_projects_own_config_stays_read_only(tmp_path: Path) -> None:
    assert read_only_refusal("git config --local --list", cwd=tmp_path) is None
    assert read_only_refusal("git config --get user.name", cwd=tmp_path) is None
