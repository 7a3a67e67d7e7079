"""Path resolution that survives symlink loops, and the containment test built on it."""

from __future__ import annotations

import os
from pathlib import Path


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
