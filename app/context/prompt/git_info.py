"""The branch, status and recent commits of a repository, read with the ``git`` executable.

The branch comes from ``git symbolic-ref`` run in the directory, never from reading
``.git/HEAD``: in a worktree (or a submodule) ``.git`` is a file pointing elsewhere.

Everything here degrades quietly: no git, no repository, no commits yet or a slow
git all give None or partial information, because a prompt without git status is
better than no session at all.
"""

from __future__ import annotations

import os
import subprocess
import time
from app.dataclass import dataclass
from pathlib import Path

DEFAULT_COMMITS = 5
# Changed and untracked files listed; the rest are counted.
DEFAULT_STATUS_LINES = 20


@dataclass(frozen=True)
class GitInfo:
    """What git said about the repository: the branch, HEAD, recent commits and changed files."""

    root: Path
    branch: str | None  # None on a detached HEAD or when it could not be read
    head: str | None  # short hash of HEAD; None before the first commit
    commits: tuple[str, ...] = ()  # "<short hash> <subject>", newest first
    detached: bool = False
    # ``git status --porcelain`` lines ("XY path"), at most DEFAULT_STATUS_LINES of them; None when unread.
    status: tuple[str, ...] | None = None
    status_more: int = 0  # changed files beyond those listed


def read_branch(root: Path, *, timeout: float = 2.0) -> str | None:
    """The checked-out branch of the repository holding ``root`` (worktrees included); None when detached or unknown."""
    return _branch(root, time.monotonic() + timeout)


def _branch(root: Path, deadline: float) -> str | None:
    """The one way the branch is read (the prompt's snapshot and the session record both come here).

    symbolic-ref names the branch even before the first commit, and fails on a detached HEAD.
    """
    branch = _git(root, deadline, "symbolic-ref", "--quiet", "--short", "HEAD")
    return branch.strip() or None if branch else None


def read_git_info(
    root: Path, *, timeout: float = 2.0, max_commits: int = DEFAULT_COMMITS, max_status: int = DEFAULT_STATUS_LINES
) -> GitInfo | None:
    """What git says about the repository holding ``root``; None when it is not one (or git is unusable).

    ``timeout`` bounds all git calls together; once it has passed, what was read so far is returned.
    """
    deadline = time.monotonic() + timeout
    toplevel = _git(root, deadline, "rev-parse", "--show-toplevel")
    if toplevel is None or not toplevel.strip():
        return None
    branch = _branch(root, deadline)
    log = _git(root, deadline, "log", f"--max-count={max_commits}", "--format=%h %s", "--no-color", "--no-show-signature")
    commits = tuple(line for line in (log or "").splitlines() if line.strip())
    porcelain = _git(root, deadline, "-c", "core.quotePath=true", "status", "--porcelain=v1", "--untracked-files=normal")
    changed = [line for line in (porcelain or "").splitlines() if line.strip()]
    head = commits[0].split(" ", 1)[0] if commits else None
    return GitInfo(
        root=Path(toplevel.strip()),
        branch=branch,
        head=head,
        commits=commits,
        detached=not branch and head is not None,
        status=tuple(changed[:max_status]) if porcelain is not None else None,
        status_more=max(0, len(changed) - max_status),
    )


def _git(root: Path, deadline: float, *args: str) -> str | None:
    """stdout of a successful git call, or None for any failure (missing git, error, timeout)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        result = subprocess.run(
            ["git", "-C", str(root), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            timeout=remaining,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return result.stdout if result.returncode == 0 else None
