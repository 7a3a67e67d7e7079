"""Reading, writing and deleting memory files, confined to the three scope roots.

Every path is checked twice: lexically (it must sit under a root) and where it
really leads once symlinks are followed, dangling ones included (it must still
be under that root). A write into team memory must also pass the team root
check and the secret scan.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from app.context.memory.document import render_memory, well_formed
from app.context.memory.entry import MemoryEntry
from app.context.memory.secrets import SecretsInTeamMemoryError, check_team_memory_secrets
from app.context.memory.paths import MemoryScope, MemoryType
from app.context.memory.paths import (
    MemoryPaths,
    check_team_root,
    is_auto_mem_path,
    realpath_nearest_existing,
)
from app.context.memory.scan import latest_listing, read_entry, scan_scope
from app.context.memory.paths import file_name_problem, memory_file_name
from app.fsutil import atomic_write_text
from app.paths import ensure_private_dir


class MemoryStoreError(Exception):
    """A memory operation that cannot be done; the message says why."""


class MemoryPathError(MemoryStoreError):
    """A path outside the memory directories, or one that leads out of them."""


class MemoryStore:
    def __init__(self, paths: MemoryPaths) -> None:
        self.paths = paths

    def list(self, scope: MemoryScope | str, *, since: int | None = None) -> list[MemoryEntry]:
        """The scope's memories. ``since`` (time.monotonic_ns): the last listing as it was when it
        began at or after then (scan.latest_listing: no ``lstat`` of 50,000 files)."""
        scope = MemoryScope(scope)
        root = self.paths.root(scope)
        if since is not None:
            listing = latest_listing(root, scope, since)
            if listing is not None:
                return listing
        return scan_scope(root, scope)

    def list_scopes(self, scopes: Iterable[MemoryScope | str] = (MemoryScope.PROJECT, MemoryScope.USER)) -> list[MemoryEntry]:
        """The entries of each scope in turn (the order recall breaks ties by)."""
        return [entry for scope in scopes for entry in self.list(scope)]

    def read(self, path: Path | str) -> MemoryEntry:
        """The entry for one memory file. Raises MemoryPathError or MemoryStoreError."""
        scope, absolute = self.confine(path)
        if not absolute.is_file():
            raise MemoryStoreError(f"no memory file at {absolute}")
        return read_entry(self.paths.root(scope), scope, absolute)

    def write(
        self,
        scope: MemoryScope | str,
        memory_type: MemoryType | str,
        *,
        name: str,
        description: str,
        body: str,
        file_name: str | None = None,
    ) -> Path:
        """Write (or replace) ``<root>/<type>/<file_name or slug of name>.md``; returns its path."""
        scope, kind = MemoryScope(scope), MemoryType(memory_type)
        file_name = memory_file_name(name) if file_name is None else file_name
        problem = file_name_problem(file_name)
        if problem:
            raise MemoryPathError(f"cannot write memory file {file_name!r}: {problem}")
        path = self.paths.type_dir(scope, kind) / file_name
        return self.write_text(path, render_memory(name=name, description=description, memory_type=kind, body=body))

    def write_text(self, path: Path | str, text: str) -> Path:
        """Write a memory file's whole text atomically. Raises MemoryPathError when the
        path is not a ``.md`` file inside a memory root, SecretsInTeamMemoryError and
        TeamMemoryRootSecurityError for team memory."""
        scope, absolute = self.confine(path)
        if absolute.suffix != ".md":
            raise MemoryPathError(f"{absolute} is not a Markdown (.md) file")
        if absolute == self.paths.index_file(scope):
            raise MemoryPathError(f"{absolute} is the index; it is rebuilt from the memory files")
        text = well_formed(text)
        if scope is MemoryScope.TEAM:
            check_team_root(self.paths.workspace_root, self.paths.team_root)
            findings = check_team_memory_secrets(self.paths.team_root, absolute, text)
            if findings:
                raise SecretsInTeamMemoryError(absolute, findings)
        else:
            ensure_private_dir(self.paths.root(scope))
        atomic_write_text(absolute, text)
        return absolute

    def delete(self, path: Path | str) -> None:
        """Delete one memory file. A symlink is removed itself, never what it points to."""
        absolute = Path(os.path.abspath(path))
        scope = self.paths.scope_of(absolute)
        if scope is None:
            raise MemoryPathError(f"{absolute} is outside the memory directories")
        root = self.paths.root(scope)
        if absolute == root or absolute == self.paths.index_file(scope):
            raise MemoryPathError(f"{absolute} is not a memory file")
        if not is_auto_mem_path(realpath_nearest_existing(root), realpath_nearest_existing(absolute.parent)):
            raise MemoryPathError(f"{absolute} leads outside the {scope.value} memory directory {root}")
        if not os.path.lexists(absolute):
            raise MemoryStoreError(f"no memory file at {absolute}")
        if absolute.is_dir() and not absolute.is_symlink():
            raise MemoryPathError(f"{absolute} is a directory, not a memory file")
        os.unlink(absolute)

    def confine(self, path: Path | str) -> tuple[MemoryScope, Path]:
        """The scope of ``path`` and its absolute form; MemoryPathError when it lies,
        or leads through symlinks, outside every memory root."""
        absolute = Path(os.path.abspath(path))
        scope = self.paths.scope_of(absolute)
        if scope is None:
            raise MemoryPathError(
                f"{absolute} is outside the memory directories "
                f"({self.paths.project_root}, {self.paths.user_root}, {self.paths.team_root})"
            )
        root = self.paths.root(scope)
        if absolute == root:
            raise MemoryPathError(f"{absolute} is the {scope.value} memory directory, not a file in it")
        try:
            real = realpath_nearest_existing(absolute)
        except OSError as error:
            raise MemoryPathError(f"{absolute} cannot be resolved: {error}") from None
        if not is_auto_mem_path(realpath_nearest_existing(root), real):
            raise MemoryPathError(f"{absolute} leads to {real}, outside the {scope.value} memory directory {root}")
        return scope, absolute
