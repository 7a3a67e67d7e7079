"""The filesystem seam every tool goes through.

Speculative runs swap ``RealFileSystem`` for a copy-on-write overlay, so the
surface stays small: anything a tool needs from the disk is a method here, and
no tool touches ``pathlib``/``os`` I/O directly.
"""

from __future__ import annotations

import os
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


class RealFileSystem:
    """The disk itself."""

    def read_bytes(self, path: Path) -> bytes:
        return path.read_bytes()

    def read_text(self, path: Path) -> str:
        # Decoding the bytes ourselves keeps "\r\n" intact, which an edit must preserve.
        return decode_utf8(self.read_bytes(path), str(path))

    def write_text(self, path: Path, text: str) -> None:
        atomic_write_text(path, text)

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
