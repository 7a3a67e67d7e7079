"""The filesystem seam every tool goes through.

Speculative runs swap ``RealFileSystem`` for a copy-on-write overlay, so the
surface stays small: anything a tool needs from the disk is a method here, and
no tool touches ``pathlib``/``os`` I/O directly.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from app.core.tools.errors import ToolError
from app.fsutil import atomic_write_text

# Directories that are never worth searching: VCS internals, dependency trees, caches.
SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})


class FileSystem(Protocol):
    """What tools may do to files. Paths are absolute; confinement is the caller's job."""

    def read_bytes(self, path: Path) -> bytes: ...

    def read_text(self, path: Path) -> str:
        """UTF-8 text with line endings untouched; ToolError when it is not UTF-8."""
        ...

    def write_text(self, path: Path, text: str) -> None:
        """Replace the file's content atomically, creating parent directories."""
        ...

    def exists(self, path: Path) -> bool: ...

    def is_file(self, path: Path) -> bool: ...

    def is_dir(self, path: Path) -> bool: ...

    def iterdir(self, path: Path) -> list[Path]:
        """The children of a directory, sorted by name."""
        ...

    def walk(self, top: Path) -> Iterator[Path]:
        """Every file under ``top`` in a stable order, skipping ``SKIPPED_DIRS``."""
        ...

    def realpath(self, path: Path) -> Path:
        """``path`` with symlinks followed; works for paths that do not exist yet."""
        ...

    def stat_size(self, path: Path) -> int: ...

    def mtime(self, path: Path) -> float: ...

    def delete(self, path: Path) -> None:
        """Remove a file (not a directory)."""
        ...


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as text, or a ToolError that says which file and where it went wrong."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start]
        raise ToolError(
            f"{name} is not UTF-8 text (byte 0x{bad:02x} at offset {exc.start}); "
            "it may be binary or use another encoding"
        ) from None


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(mode: int) -> str | None:
    """What a non-regular, non-directory file is, in words; None for a regular file or a directory."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((words for test, words in _SPECIAL_KINDS if test(mode)), "not a regular file")


def refuse_special(path: Path, mode: int) -> None:
    kind = special_kind(mode)
    if kind is not None:
        # Reading a FIFO blocks until someone writes to it; a device can be endless or have side effects.
        raise ToolError(f"{path} is {kind}, not a regular file; only regular files can be read or written")


def read_regular_file(path: Path) -> bytes:
    """The bytes of a regular file; FIFOs, devices and sockets are refused before they are opened.

    The file is then opened non-blocking and checked again, so one swapped in between
    the two looks is refused too instead of blocking the turn.
    """
    refuse_special(path, os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        refuse_special(path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return handle.read()
    finally:
        if fd >= 0:
            os.close(fd)


class RealFileSystem:
    """The disk itself."""

    def read_bytes(self, path: Path) -> bytes:
        return read_regular_file(path)

    def read_text(self, path: Path) -> str:
        # Decoding the bytes ourselves keeps "\r\n" intact, which an edit must preserve.
        return decode_utf8(self.read_bytes(path), str(path))

    def write_text(self, path: Path, text: str) -> None:
        # Through a symlink the target is written and the link kept (a CLAUDE.md linking to AGENTS.md
        # stays a link); the caller has checked that the target lies inside the workspace.
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        if target.exists():
            refuse_special(target, os.stat(target).st_mode)
        atomic_write_text(target, text)

    def exists(self, path: Path) -> bool:
        return path.exists()

    def is_file(self, path: Path) -> bool:
        return path.is_file()

    def is_dir(self, path: Path) -> bool:
        return path.is_dir()

    def iterdir(self, path: Path) -> list[Path]:
        return sorted(path.iterdir(), key=lambda child: child.name)

    def walk(self, top: Path) -> Iterator[Path]:
        # Symlinked directories are not followed: they can loop or lead out of the workspace.
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            dirnames[:] = sorted(name for name in dirnames if name not in SKIPPED_DIRS)
            base = Path(dirpath)
            for name in sorted(filenames):
                yield base / name

    def realpath(self, path: Path) -> Path:
        return Path(os.path.realpath(path))

    def stat_size(self, path: Path) -> int:
        return path.stat().st_size

    def mtime(self, path: Path) -> float:
        return path.stat().st_mtime

    def delete(self, path: Path) -> None:
        path.unlink()
