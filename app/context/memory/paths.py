"""Where auto-memory lives, and which paths count as memory.

Three scope roots, each holding one sub-directory per memory type and a
``MEMORY.md`` index:

- project: ``<project state dir>/memory`` (private to this person and project)
- user:    ``<data dir>/memories`` (private, shared by every project)
- team:    ``<git root or project root>/.qwen/team-memory`` (committed to git)

The scheduling state (``meta.json``, ``extract-cursor.json``,
``consolidation.lock``) sits next to the project root, in its parent directory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from app.context.memory.kinds import MemoryScope, MemoryType
from app.paths import QWEN_DIR, Paths, sanitize_project_path

AUTO_MEMORY_DIRNAME = "memory"
USER_MEMORY_DIRNAME = "memories"
TEAM_MEMORY_DIRNAME = "team-memory"
INDEX_FILENAME = "MEMORY.md"
PINNED_DIRNAME = "pinned"
META_FILENAME = "meta.json"
CURSOR_FILENAME = "extract-cursor.json"
LOCK_FILENAME = "consolidation.lock"
CHATS_DIRNAME = "chats"

MEMORY_BASE_DIR_ENV = "QWEN_CODE_MEMORY_BASE_DIR"
MEMORY_LOCAL_ENV = "QWEN_CODE_MEMORY_LOCAL"
# The same bound the kernel puts on a path's symlinks (ELOOP past 40).
MAX_SYMLINK_HOPS = 40


class TeamMemoryRootSecurityError(Exception):
    """The team root is a symlink or resolves somewhere other than inside its repository."""


@dataclass(frozen=True)
class MemoryPaths:
    """The three scope roots and the state files of one project.

    ``workspace_root`` is the git root (or the project root without git): the
    repository the team root belongs to.
    """

    project_root: Path
    user_root: Path
    team_root: Path
    workspace_root: Path

    def root(self, scope: MemoryScope | str) -> Path:
        return {
            MemoryScope.PROJECT: self.project_root,
            MemoryScope.USER: self.user_root,
            MemoryScope.TEAM: self.team_root,
        }[MemoryScope(scope)]

    def index_file(self, scope: MemoryScope | str) -> Path:
        return self.root(scope) / INDEX_FILENAME

    def type_dir(self, scope: MemoryScope | str, memory_type: MemoryType | str) -> Path:
        return self.root(scope) / MemoryType(memory_type).value

    @property
    def state_dir(self) -> Path:
        return self.project_root.parent

    @property
    def meta_file(self) -> Path:
        return self.state_dir / META_FILENAME

    @property
    def cursor_file(self) -> Path:
        return self.state_dir / CURSOR_FILENAME

    @property
    def lock_file(self) -> Path:
        return self.state_dir / LOCK_FILENAME

    @property
    def chats_dir(self) -> Path:
        return self.state_dir / CHATS_DIRNAME

    def scope_of(self, path: Path | str) -> MemoryScope | None:
        """The scope whose root holds ``path`` (compared lexically), or None."""
        for scope in MemoryScope:
            if is_auto_mem_path(self.root(scope), path):
                return scope
        return None


def memory_paths(paths: Paths, env: Mapping[str, str] | None = None) -> MemoryPaths:
    """The memory locations for ``paths``; ``env`` (default: os.environ) may relocate them."""
    env = os.environ if env is None else env
    workspace = paths.project_root
    base_override = env.get(MEMORY_BASE_DIR_ENV, "").strip()
    base = Path(base_override).expanduser().resolve() if base_override else paths.data_dir
    if env.get(MEMORY_LOCAL_ENV, "").strip() == "1":
        project_root = workspace / QWEN_DIR / AUTO_MEMORY_DIRNAME
    elif base_override:
        project_root = base / "projects" / sanitize_project_path(workspace) / AUTO_MEMORY_DIRNAME
    else:
        project_root = paths.project_state_dir / AUTO_MEMORY_DIRNAME
    return MemoryPaths(
        project_root=project_root,
        user_root=base / USER_MEMORY_DIRNAME,
        team_root=workspace / QWEN_DIR / TEAM_MEMORY_DIRNAME,
        workspace_root=workspace,
    )


def is_auto_mem_path(root: Path | str, path: Path | str) -> bool:
    """``path`` is ``root`` or lies below it, compared lexically after making both absolute."""
    try:
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    except ValueError:  # different drives on Windows
        return False
    if relative == os.curdir:
        return True
    return not relative.startswith("..") and not os.path.isabs(relative)


def is_any_auto_mem_path(paths: MemoryPaths, path: Path | str) -> bool:
    """In the project or user scope. Team is left out on purpose: team memory is
    committed for everyone to read, so writing it must keep asking the person."""
    return is_auto_mem_path(paths.project_root, path) or is_auto_mem_path(paths.user_root, path)


def is_team_auto_mem_path(team_root: Path | str, path: Path | str) -> bool:
    """``path`` ends up inside the team root once symlinks are followed.

    Judged on where a write would really land: a dangling symlink outside the
    root that points into it (a decoy) counts as inside, so it cannot dodge
    the secret scan. A symlink chain too long to follow counts as inside too.
    """
    try:
        return is_auto_mem_path(realpath_nearest_existing(team_root), realpath_nearest_existing(path))
    except _TooManyHops:
        return True


def check_team_root(workspace_root: Path | str, team_root: Path | str) -> None:
    """Raise TeamMemoryRootSecurityError unless the team root is a real directory
    (or not there yet) at exactly ``<realpath(workspace)>/.qwen/team-memory``."""
    team = Path(os.path.abspath(team_root))
    if team.is_symlink():
        raise TeamMemoryRootSecurityError(f"the team memory root {team} is a symlink")
    expected = os.path.join(os.path.realpath(workspace_root), QWEN_DIR, TEAM_MEMORY_DIRNAME)
    actual = os.path.realpath(team)
    if actual != expected:
        raise TeamMemoryRootSecurityError(
            f"the team memory root {team} resolves to {actual}, outside the repository's {expected}"
        )


class _TooManyHops(OSError):
    pass


def resolve_leaf_symlink(path: Path | str) -> str:
    """Follow ``path`` while it is a symlink, dangling or not (at most MAX_SYMLINK_HOPS links)."""
    current = os.path.abspath(path)
    for _ in range(MAX_SYMLINK_HOPS):
        try:
            target = os.readlink(current)
        except OSError:  # not a symlink, or not there at all
            return current
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    raise _TooManyHops(f"more than {MAX_SYMLINK_HOPS} symlinks at {path}")


def realpath_nearest_existing(path: Path | str) -> str:
    """The real path of ``path``: its leaf symlinks followed, then the nearest existing
    ancestor resolved and the not-yet-existing rest appended."""
    current = resolve_leaf_symlink(path)
    missing: list[str] = []
    while not os.path.lexists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        missing.append(os.path.basename(current))
        current = parent
    return os.path.join(os.path.realpath(current), *reversed(missing))
