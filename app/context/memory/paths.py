"""A memory file's place and name: scopes and types, where each scope lives, file names, reading a file.

The vocabulary: four topic types and three scopes. Three scope roots, each holding
one sub-directory per memory type and a ``MEMORY.md`` index:

- project: ``<project state dir>/memory`` (private to this person and project)
- user:    ``<data dir>/memories`` (private, shared by every project)
- team:    ``<git root or project root>/.qwen/team-memory`` (committed to git)

The scheduling state (``meta.json``, ``extract-cursor.json``,
``consolidation.lock``) sits next to the project root, in its parent directory.

File names are made from memories' names and are ASCII. Index links percent-encode
every other character (nine characters for one Chinese character) and index lines
are cut at 150, so a non-ASCII file name would soon cut its own link in half.
Characters that do not survive are replaced by a short hash of the name, which
keeps two names that differ only in them apart.

A memory file is read without trusting its size or its encoding (``read_capped``).
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Mapping
from app.dataclass import dataclass
from enum import StrEnum
from pathlib import Path

from app.paths import QWEN_DIR, Paths, sanitize_project_path


class MemoryType(StrEnum):
    """What a memory is about; each type is a sub-directory of a scope root."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


class MemoryScope(StrEnum):
    """Who a memory belongs to: this project, this person everywhere, or the repository's team."""

    PROJECT = "project"
    USER = "user"
    TEAM = "team"


AUTO_MEMORY_TYPES: tuple[str, ...] = tuple(t.value for t in MemoryType)
AUTO_MEMORY_SCHEMA_VERSION = 1


def memory_type(value: object) -> MemoryType | None:
    """The type named by a frontmatter value, or None when it is not one of the four."""
    if not isinstance(value, str):
        return None
    try:
        return MemoryType(value.strip())
    except ValueError:
        return None

AUTO_MEMORY_DIRNAME = "memory"
USER_MEMORY_DIRNAME = "memories"
TEAM_MEMORY_DIRNAME = "team-memory"
INDEX_FILENAME = "MEMORY.md"
# What the prompt shows for a scope whose index is empty or missing.
EMPTY_INDEX_TEXT = "Your MEMORY.md is currently empty. When you save new memories, they will appear here."
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

MAX_SLUG_CHARS = 48
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def slugify(name: str) -> str:
    """Lower-case ASCII words joined by ``-``, plus a hash when anything else was dropped. Never empty."""
    text = unicodedata.normalize("NFKD", name).lower()
    ascii_words = _NOT_ALNUM.sub("-", text.encode("ascii", "ignore").decode("ascii")).strip("-")
    lost = any(ord(c) > 127 and not unicodedata.combining(c) and (c.isalnum()) for c in text)
    slug = ascii_words[:MAX_SLUG_CHARS].rstrip("-")
    if lost or not slug:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug}-{digest}" if slug else f"memory-{digest}"
    return slug


def memory_file_name(name: str) -> str:
    return f"{slugify(name)}.md"


def file_name_problem(file_name: str) -> str | None:
    """Why ``file_name`` cannot name a memory file (a single ``.md`` component), or None."""
    if not file_name or file_name in (".", ".."):
        return "the file name is empty"
    if "/" in file_name or "\\" in file_name:
        return "the file name must not contain a path separator"
    if _CONTROL.search(file_name):
        return "the file name must not contain control characters"
    if file_name.startswith("."):
        return "the file name must not start with '.'"
    if not file_name.endswith(".md"):
        return "the file name must end in .md"
    return None


def has_control_characters(text: str) -> bool:
    return _CONTROL.search(text) is not None

# Far more than any useful memory; a runaway file is read only this far.
MAX_MEMORY_FILE_BYTES = 256 * 1024


@dataclass(frozen=True)
class FileText:
    """A memory file's text as read (at most its first MAX_MEMORY_FILE_BYTES), and what was wrong with it."""

    text: str
    size: int
    mtime: float  # of the file that was read (stat'ed through the open handle)
    truncated: bool
    problems: tuple[str, ...] = ()


def read_capped(path: Path | str, limit: int = MAX_MEMORY_FILE_BYTES) -> FileText:
    """The first ``limit`` bytes of ``path`` as text. Raises OSError."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
        stat = os.fstat(handle.fileno())
    size = max(len(data), stat.st_size)
    truncated = len(data) > limit
    problems: list[str] = []
    if truncated:
        data = data[:limit]
        problems.append(f"the file is {size:,} bytes; only the first {limit:,} were read")
    text, clean = decode_utf8(data, truncated=truncated)
    if not clean:
        problems.append("the file is not valid UTF-8; unreadable bytes were replaced")
    return FileText(text=text, size=size, mtime=stat.st_mtime, truncated=truncated, problems=tuple(problems))


def decode_utf8(data: bytes, *, truncated: bool) -> tuple[str, bool]:
    """The text and whether it decoded cleanly; a character cut by truncation is dropped, not flagged."""
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError as error:
        # A multi-byte character cut in half at the cap is our doing, not the file's.
        if truncated and error.start >= len(data) - 3:
            try:
                return data[: error.start].decode("utf-8"), True
            except UnicodeDecodeError:
                pass
    return data.decode("utf-8", errors="replace"), False



def read_text_no_follow(path: Path, limit: int = MAX_MEMORY_FILE_BYTES) -> str | None:
    """The first ``limit`` bytes of ``path`` as text, or None when it is missing, unreadable
    or a symlink. For files read into prompts or compared before a rewrite: a symlink
    planted in their place must not pull some other file in."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError:
            return None
    truncated = len(data) > limit
    text, _ = decode_utf8(data[:limit], truncated=truncated)
    return text
