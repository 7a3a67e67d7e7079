"""The branch, status and recent commits of a repository, read with the ``git`` executable.

The branch comes from git itself (``symbolic-ref`` for the session record, the ``## `` line of
``status --branch`` for the prompt), never from reading ``.git/HEAD``: in a worktree (or a submodule)
``.git`` is a file pointing elsewhere.

Everything here degrades quietly: no git, no repository, no commits yet or a slow
git all give None or partial information, because a prompt without git status is
better than no session at all.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from app.dataclass import dataclass
from pathlib import Path
from app.core.tools.git_guard import environment as git_environment, subcommand_args

DEFAULT_COMMITS = 5
BRANCH_ARGS = ("symbolic-ref", "--quiet", "--short", "HEAD")
# What ``git status --short --branch`` heads its output with, and how it names a branch before its first commit.
_BRANCH_HEADER = "## "
_UNBORN = re.compile(r"^(?:No commits yet|Initial commit) on ")
_DETACHED = "HEAD (no branch)"


@dataclass(frozen=True)
class GitInfo:
    """What git said about the repository: the branch, HEAD, recent commits and changed files."""

    root: Path
    branch: str | None  # None on a detached HEAD or when it could not be read
    head: str | None  # short hash of HEAD; None before the first commit
    commits: tuple[str, ...] = ()  # ``git log --oneline`` lines, newest first
    detached: bool = False
    # ``git status --short`` lines as git wrote them (" M a.py" keeps its leading space), every one of them,
    # with paths relative to the directory git ran in; None when unread. The snapshot bounds them by characters.
    status: tuple[str, ...] | None = None


def has_snapshot(info: GitInfo) -> bool:
    """Whether the prompt carries a git section: Qwen Code sends none when status or log fails (no commits yet)."""
    return info.status is not None and bool(info.commits)


def read_branch(root: Path, *, timeout: float = 2.0) -> str | None:
    """The checked-out branch of the repository holding ``root`` (worktrees included); None when detached or unknown."""
    return _branch(root, time.monotonic() + timeout)


def _branch(root: Path, deadline: float) -> str | None:
    """The branch, as the session record reads it.

    symbolic-ref names the branch even before the first commit, and fails on a detached HEAD.
    """
    branch = _git(root, deadline, *BRANCH_ARGS)
    return branch.strip() or None if branch else None


def read_git_info(root: Path, *, timeout: float = 2.0, max_commits: int = DEFAULT_COMMITS) -> GitInfo | None:
    """What git says about the repository holding ``root``; None when it is not one (or git is unusable).

    Run from a subdirectory, the status lists paths relative to it (``../../x.json``), as Qwen Code 0.24.4's
    ``git status --short --branch`` run in the working directory does; the branch comes from that same
    call's ``## `` line. ``timeout`` bounds all git calls together; once it has passed, what was read so far
    is returned. The three calls run at the same time (each is a git process starting up; status is the
    one that grows with the tree).
    """
    deadline = time.monotonic() + timeout
    if timeout <= 0:
        return None
    calls = [
        _start(root, "rev-parse", "--show-toplevel"),
        _start(root, "log", "--oneline", "-n", str(max_commits)),
        # LC_ALL=C: the "## No commits yet on" header is translated otherwise.
        _start(root, "status", "--short", "--branch", locale="C"),
    ]
    toplevel, log, status_out = (_finish(call, deadline) for call in calls)
    if toplevel is None or not toplevel.strip():
        return None
    commits = tuple(line for line in (log or "").strip().splitlines() if line.strip())
    branch, detached, status = _parse_status(status_out)
    return GitInfo(
        root=Path(toplevel.strip()),
        branch=branch,
        head=commits[0].split(" ", 1)[0] if commits else None,
        commits=commits,
        detached=detached,
        status=status,
    )


def _parse_status(out: str | None) -> tuple[str | None, bool, tuple[str, ...] | None]:
    """(branch, detached, status lines) from ``git status --short --branch``; (None, False, None) when unread."""
    if out is None:
        return None, False, None
    header, *lines = out.rstrip().splitlines() or [""]
    if not header.startswith(_BRANCH_HEADER):
        return None, False, None
    described = header[len(_BRANCH_HEADER) :]
    name = _UNBORN.sub("", described).split("...")[0]
    detached = described == _DETACHED or not name
    return (None if detached else name), detached, tuple(lines)


def _git(root: Path, deadline: float, *args: str) -> str | None:
    """stdout of a successful git call, or None for any failure (missing git, error, timeout)."""
    if deadline - time.monotonic() <= 0:
        return None
    return _finish(_start(root, *args), deadline)


def _start(root: Path, *args: str, locale: str | None = None) -> subprocess.Popen[str] | None:
    """A git call under way (no prompt for credentials, no optional locks, none of the repository's
    programs: git_guard), or None when git cannot start."""
    env = git_environment({**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}, root)
    if locale is not None:
        env["LC_ALL"] = locale
    try:
        return subprocess.Popen(
            ["git", "-C", str(root), *subcommand_args(args)],
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
