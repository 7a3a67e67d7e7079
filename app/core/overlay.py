"""A copy-on-write view of the workspace for speculative turns.

Writes land in a shadow tree under a temporary directory; reads look in the
shadow first, then the real file; deletes are tombstones. Nothing touches the
real workspace until ``apply``, which first checks that no real file changed
since the speculation looked at it and then writes each file atomically.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from app.dataclass import dataclass
from pathlib import Path

from app.core.tools.errors import ToolError
from app.core.tools.filesystem import SKIPPED_DIRS, decode_utf8, read_regular_file
from app.fsutil import atomic_write_text
from app.core.tools.text import plural


class OverlayConflict(Exception):
    """Real files changed since the speculation read them; nothing was applied."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        names = ", ".join(str(p) for p in paths[:5])
        super().__init__(f"{plural(len(paths), 'file')} changed on disk since the suggestion was prepared ({names}); nothing was applied")


@dataclass(frozen=True)
class OverlayChange:
    """What applying the overlay would do to one real file, with the lines added and removed."""

    path: Path  # the real path
    kind: str  # write | create | delete
    added: int = 0
    removed: int = 0


def _fingerprint(path: Path) -> str | None:
    """What a real file was when first seen: None when it did not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return "<dir>"


SHADOW_PREFIX = "agentctx-"
_SHADOW_NAME = re.compile(rf"{SHADOW_PREFIX}(\d+)-speculation-\w+")


def remove_stale_shadows(parent: Path | None = None) -> list[Path]:
    """Shadow trees left by processes that died before accepting or discarding (``agentctx-<pid>-speculation-…``)."""
    parent = Path(parent or tempfile.gettempdir())
    try:
        names = [entry.name for entry in parent.iterdir() if entry.name.startswith(SHADOW_PREFIX)]
    except OSError:
        return []
    removed: list[Path] = []
    for name in names:
        match = _SHADOW_NAME.fullmatch(name)
        entry = parent / name
        if match and int(match.group(1)) != os.getpid() and not _process_alive(int(match.group(1))) and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive, and not ours to clean up after
        return True
    return True


class OverlayFileSystem:
    def __init__(self, root: Path, *, key: str = "speculation") -> None:
        self.root = Path(os.path.realpath(root))
        self.shadow = Path(tempfile.mkdtemp(prefix=f"{SHADOW_PREFIX}{os.getpid()}-{key}-"))
        self.tombstones: set[Path] = set()
        self.written: set[Path] = set()
        self.seen: dict[Path, str | None] = {}

    # -- where things live ------------------------------------------------------------------

    def _real(self, path: Path) -> Path:
        """The absolute real path, which must lie inside the workspace (the shadow mirrors only that)."""
        real = Path(os.path.realpath(path))
        if real != self.root and self.root not in real.parents:
            raise ToolError(f"{path} is outside the workspace; a speculative turn can only change files inside it")
        return real

    def _shadow_of(self, path: Path) -> Path:
        return self.shadow / self._real(path).relative_to(self.root)

    def _note(self, real: Path) -> None:
        if real not in self.seen:
            self.seen[real] = _fingerprint(real)

    # -- the FileSystem protocol --------------------------------------------------------------

    def read_bytes(self, path: Path) -> bytes:
        real = self._real(path)
        if real in self.tombstones:
            raise FileNotFoundError(2, "No such file or directory", str(path))
        shadow = self._shadow_of(real)
        if shadow.is_file():
            return shadow.read_bytes()
        self._note(real)
        return read_regular_file(real)

    def read_text(self, path: Path) -> str:
        return decode_utf8(self.read_bytes(path), str(path))

    def write_text(self, path: Path, text: str) -> None:
        real = self._real(path)
        self._note(real)
        shadow = self._shadow_of(real)
        shadow.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(shadow, text)
        self.tombstones.discard(real)
        self.written.add(real)

    def exists(self, path: Path) -> bool:
        real = self._real(path)
        if real in self.tombstones:
            return False
        return self._shadow_of(real).exists() or real.exists()

    def is_file(self, path: Path) -> bool:
        real = self._real(path)
        if real in self.tombstones:
            return False
        return self._shadow_of(real).is_file() or real.is_file()

    def is_dir(self, path: Path) -> bool:
        real = self._real(path)
        return self._shadow_of(real).is_dir() or real.is_dir()

    def iterdir(self, path: Path) -> list[Path]:
        real = self._real(path)
        children = {child.name for child in real.iterdir()} if real.is_dir() else set()
        shadow = self._shadow_of(real)
        if shadow.is_dir():
            children |= {child.name for child in shadow.iterdir()}
        return sorted((real / name for name in children if real / name not in self.tombstones), key=lambda p: p.name)

    def walk(self, top: Path) -> Iterator[Path]:
        real_top = self._real(top)
        found: set[Path] = set()
        for base in (real_top, self._shadow_of(real_top)):
            for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
                dirnames[:] = sorted(name for name in dirnames if name not in SKIPPED_DIRS)
                relative = Path(dirpath).relative_to(base)
                found.update(real_top / relative / name for name in filenames)
        yield from sorted(p for p in found if p not in self.tombstones)

    def realpath(self, path: Path) -> Path:
        return Path(os.path.realpath(path))

    def stat_size(self, path: Path) -> int:
        shadow = self._shadow_of(path)
        return shadow.stat().st_size if shadow.is_file() else self._real(path).stat().st_size

    def mtime(self, path: Path) -> float:
        shadow = self._shadow_of(path)
        return shadow.stat().st_mtime if shadow.is_file() else self._real(path).stat().st_mtime

    def delete(self, path: Path) -> None:
        real = self._real(path)
        if not self.exists(real):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        self._note(real)
        shadow = self._shadow_of(real)
        if shadow.is_file():
            shadow.unlink()
        self.written.discard(real)
        self.tombstones.add(real)

    # -- what it would change, and making it real ------------------------------------------------

    def changes(self) -> list[OverlayChange]:
        result: list[OverlayChange] = []
        for real in sorted(self.written):
            new = self._shadow_of(real).read_text(encoding="utf-8", errors="replace").splitlines()
            old = real.read_text(encoding="utf-8", errors="replace").splitlines() if self.seen.get(real) not in (None, "<dir>") else []
            diff = list(difflib.unified_diff(old, new, lineterm="", n=0))
            added = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
            removed = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
            result.append(OverlayChange(real, "write" if self.seen.get(real) else "create", added, removed))
        for real in sorted(self.tombstones):
            result.append(OverlayChange(real, "delete"))
        return result

    def diff_text(self) -> str:
        """Every change as a unified diff against the real files, paths relative to the workspace."""
        parts: list[str] = []
        for real in sorted(self.written):
            name = real.relative_to(self.root).as_posix()
            new = self._shadow_of(real).read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
            existed = self.seen.get(real) not in (None, "<dir>")
            old = real.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True) if existed else []
            before = f"a/{name}" if existed else "/dev/null"
            parts.extend(line if line.endswith("\n") else line + "\n" for line in difflib.unified_diff(old, new, before, f"b/{name}"))
        for real in sorted(self.tombstones):
            parts.append(f"deleted: {real.relative_to(self.root).as_posix()}\n")
        return "".join(parts)

    def conflicts(self) -> list[Path]:
        """Real files that are no longer what the speculation saw: those it changes, and those it only
        read (its edits and its answer rest on what they said then)."""
        return sorted(real for real, seen in self.seen.items() if _fingerprint(real) != seen)

    def apply(self) -> list[OverlayChange]:
        """Write the shadow into the workspace, each file atomically; refuse everything on any conflict."""
        conflicts = self.conflicts()
        if conflicts:
            raise OverlayConflict(conflicts)
        changes = self.changes()
        for real in sorted(self.written):
            real.parent.mkdir(parents=True, exist_ok=True)
            # The shadow only ever holds what write_text wrote: valid text.
            atomic_write_text(real, self._shadow_of(real).read_text(encoding="utf-8"))
        for real in sorted(self.tombstones):
            real.unlink(missing_ok=True)
        self.discard()
        return changes

    def discard(self) -> None:
        shutil.rmtree(self.shadow, ignore_errors=True)
        self.written.clear()
        self.tombstones.clear()
