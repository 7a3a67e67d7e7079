"""A path as the person reads it on screen: the home directory written as ``~``."""

from __future__ import annotations

import os
from pathlib import Path


def short_path(path: Path | str) -> str:
    """``~/x/y.md`` for a path under the home directory, the absolute path otherwise."""
    absolute = os.path.abspath(path)
    try:
        home = str(Path.home())
    except (RuntimeError, KeyError):  # no home directory to speak of
        return absolute
    if home not in ("", os.sep) and (absolute == home or absolute.startswith(home + os.sep)):
        return "~" + absolute[len(home):]
    return absolute
