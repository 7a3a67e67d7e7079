"""read_git_info against real temporary repositories, and every way it can fail quietly."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from app.context.prompt import GitInfo, read_git_info

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git executable")


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The user's own git configuration (signing, hooks, default branch) must not leak in.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _git(repo: Path, *args: str) -> str:
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]
    result = subprocess.run(["git", "-C", str(repo), *identity, *args], capture_output=True, text=True, check=True)
    return result.stdout.strip()


def _repo(tmp_path: Path, commits: int) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    for n in range(1, commits + 1):
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"Commit number {n}")
    return repo


def test_branch_and_last_five_commits_newest_first(tmp_path: Path) -> None:
    repo = _repo(tmp_path, commits=7)
    (repo / "sub").mkdir()
    info = read_git_info(repo / "sub")
    assert info is not None
    assert info.root == repo.resolve() and info.branch == "main" and not info.detached
    assert [line.split(" ", 1)[1] for line in info.commits] == [f"Commit number {n}" for n in range(7, 2, -1)]
    assert info.head == _git(repo, "rev-parse", "--short", "HEAD")
    assert info.commits[0].startswith(info.head + " ")


def test_empty_repository_has_a_branch_but_no_commits(tmp_path: Path) -> None:
    info = read_git_info(_repo(tmp_path, commits=0))
    assert info is not None
    assert (info.branch, info.head, info.commits, info.detached) == ("main", None, (), False)


def test_detached_head(tmp_path: Path) -> None:
    repo = _repo(tmp_path, commits=2)
    _git(repo, "checkout", "-q", "--detach", "HEAD~1")
    info = read_git_info(repo)
    assert info is not None
    assert info.branch is None and info.detached
    assert info.head == _git(repo, "rev-parse", "--short", "HEAD")
    assert [line.split(" ", 1)[1] for line in info.commits] == ["Commit number 1"]


def test_not_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keep git from walking up into whatever repository may hold the temp directory.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    (tmp_path / "plain").mkdir()
    assert read_git_info(tmp_path / "plain") is None


def test_missing_directory(tmp_path: Path) -> None:
    assert read_git_info(tmp_path / "does-not-exist") is None


def test_git_missing_from_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path, commits=1)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert read_git_info(repo) is None


def test_no_time_left_gives_none(tmp_path: Path) -> None:
    assert read_git_info(_repo(tmp_path, commits=1), timeout=0) is None


def test_a_timeout_mid_way_keeps_what_was_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A git whose log hangs (a huge history on a slow disk): the other calls, run beside it, still count.
    repo = _repo(tmp_path, commits=1)
    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(f'#!/bin/sh\nfor a in "$@"; do [ "$a" = log ] && exec sleep 30; done\nexec {real_git} "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    started = time.monotonic()
    assert read_git_info(repo, timeout=1.0) == GitInfo(root=repo.resolve(), branch="main", head=None, commits=(), detached=False, status=())
    assert time.monotonic() - started < 10  # the hanging call was stopped at the deadline, not waited for
