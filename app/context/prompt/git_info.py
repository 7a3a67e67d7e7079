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
BRANCH_ARGS = ("symbolic-ref", "--quiet", "--short", "HEAD")


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
    """The branch, as the session record reads it (the prompt's snapshot runs the same ``BRANCH_ARGS``).

    symbolic-ref names the branch even before the first commit, and fails on a detached HEAD.
    """
    branch = _git(root, deadline, *BRANCH_ARGS)
    return branch.strip() or None if branch else None


def read_git_info(
    root: Path, *, timeout: float = 2.0, max_commits: int = DEFAULT_COMMITS, max_status: int = DEFAULT_STATUS_LINES
) -> GitInfo | None:
    """What git says about the repository holding ``root``; None when it is not one (or git is unusable).

    ``timeout`` bounds all git calls together; once it has passed, what was read so far is returned.
    The four calls run at the same time: in this repository 10-13 ms together against 11-50 ms one
    after the other (each is a git process starting up; status is the one that grows with the tree).
    """
    deadline = time.monotonic() + timeout
    if timeout <= 0:
        return None
    calls = [
        _start(root, "rev-parse", "--show-toplevel"),
        _start(root, *BRANCH_ARGS),
        _start(root, "log", f"--max-count={max_commits}", "--format=%h %s", "--no-color", "--no-show-signature"),
        _start(root, "-c", "core.quotePath=true", "status", "--porcelain=v1", "--untracked-files=normal"),
    ]
    toplevel, branch_out, log, porcelain = (_finish(call, deadline) for call in calls)
    if toplevel is None or not toplevel.strip():
        return None
    branch = branch_out.strip() or None if branch_out else None
    commits = tuple(line for line in (log or "").splitlines() if line.strip())
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
    if deadline - time.monotonic() <= 0:
        return None
    return _finish(_start(root, *args), deadline)


def _start(root: Path, *args: str) -> subprocess.Popen[str] | None:
    """A git call under way (no prompt for credentials, no optional locks), or None when git cannot start."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        return subprocess.Popen(
            ["git", "-C", str(root), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
        )
    except (OSError, ValueError):
        return None


def _finish(call: subprocess.Popen[str] | None, deadline: float) -> str | None:
    """The call's stdout when it succeeds before ``deadline``; a call still running then is stopped."""
    if call is None:
        return None
    try:
        # One that already ended is read whatever the time (a slow call before it used the time up).
        out, _ = call.communicate(timeout=None if call.poll() is not None else max(0.0, deadline - time.monotonic()))
    except (subprocess.SubprocessError, OSError):
        call.kill()
        call.communicate()
        return None
    return out if call.returncode == 0 else None
