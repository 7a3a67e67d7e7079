"""The filesystem questions one load asks, each answered once: canonical paths, git roots, file texts.

A deep tree asks the same things many times (every import resolves its target,
every file wants its project root); the answers cannot change within a load.
Paths are handled as strings inside: building ``Path`` objects cost more than
the lookups themselves.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from app.context.instructions.reading import MAX_FILE_BYTES, FileText, read_text


class FsCache:
    def __init__(self, *, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._real: dict[str, str] = {}
        self._git: dict[str, str | None] = {}
        self._texts: dict[str, FileText] = {}

    def real(self, path: Path | str) -> str:
        """Canonical form of a path: ``..`` folded lexically first, then symlinks resolved.

        Resolved directory by directory so a shared parent costs one lookup for all its files.
        """
        path = os.path.abspath(path)
        pending: list[str] = []
        current = path
        while current not in self._real:
            parent = os.path.dirname(current)
            if parent == current:  # the filesystem root
                self._real[current] = current
                break
            pending.append(current)
            current = parent
        for item in reversed(pending):
            candidate = os.path.join(self._real[os.path.dirname(item)], os.path.basename(item))
            # realpath (non-strict) copes with loops: the looping part is left as it is.
            self._real[item] = os.path.realpath(candidate) if os.path.islink(candidate) else candidate
        return self._real[path]

    def git_root(self, start: Path | str) -> Path | None:
        """The nearest ancestor (or ``start``) holding a ``.git`` directory or file (worktrees, submodules)."""
        pending: list[str] = []
        current = self.real(start)
        while True:
            if current in self._git:
                root = self._git[current]
                break
            pending.append(current)
            if os.path.exists(os.path.join(current, ".git")):
                root = current
                break
            parent = os.path.dirname(current)
            if parent == current:
                root = None
                break
            current = parent
        for item in pending:
            self._git[item] = root
        return Path(root) if root is not None else None

    def read(self, path: Path | str) -> FileText:
        """The file's text, read on first request; later requests (by any name) reuse it."""
        key = self.real(path)
        found = self._texts.get(key)
        if found is None:
            found = read_text(Path(path), max_bytes=self.max_bytes)
            self._texts[key] = found
        elif str(found.path) != str(path):
            found = replace(found, path=Path(path))
        return found

    @property
    def reads(self) -> int:
        return len(self._texts)
