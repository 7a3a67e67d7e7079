"""Path resolution that survives symlink loops, and the containment test built on it."""

from __future__ import annotations

import os
from pathlib import Path

# What a file that leads outside the place it may come from is told (an @import, an instruction file, a skill).
TRAVERSAL_MESSAGE = "Path traversal attempt"


def real_path(path: Path | str) -> Path:
    """The canonical path, resolving symlinks where possible.

    ``os.path.realpath`` (non-strict) leaves a looping component unresolved
    instead of raising, unlike ``Path.resolve`` on Python 3.11.
    """
    return Path(os.path.realpath(os.path.abspath(path)))


def is_within(path: Path | str, root: Path | str) -> bool:
    """``path`` is ``root`` itself or lies under it (compared as given, by whole components)."""
    text, prefix = str(path), str(root)
    if text == prefix:
        return True
    return text.startswith(prefix if prefix.endswith(os.sep) else prefix + os.sep)


def escaping_link(path: Path | str, root: Path | str, fs: object | None = None) -> str | None:
    """Why a file reached through a symlink may not be read, or None.

    A repository's ``CLAUDE.md -> AGENTS.md`` is fine; ``AGENTS.md -> ~/.aws/credentials`` is the
    attack an ``@import`` of the same target is refused for, so it gets the same words.
    """
    absolute = os.path.abspath(path)
    real = fs.real(absolute) if fs is not None else str(real_path(absolute))  # type: ignore[attr-defined]
    if real == absolute or is_within(real, real_path(root)):
        return None
    return f"Path traversal attempt - it links to {real}, outside {root}"

