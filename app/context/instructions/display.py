"""How a file's path is shown: in the injected block and in the UI."""

from __future__ import annotations

import os
import re
from pathlib import Path

from app.context.instructions.fspaths import is_within

# CSI sequences, OSC sequences (ended by BEL or ST) and two-character escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """Drop ANSI escapes and control characters: a file name must not forge a line of the prompt."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def display_path(path: Path | str, cwd: Path | str) -> str:
    """The path as written into ``--- Context from: … ---``: relative to cwd when absolute."""
    text = str(path)
    if os.path.isabs(text):
        text = _relative(text, str(cwd))
    return strip_control(text)


def ui_path(path: Path | str, cwd: Path | str, home: Path | str) -> str:
    """The path shown to a person: relative inside cwd, ``~/…`` under home, else relative."""
    text, home_text = str(path), str(home)
    if not is_within(text, cwd) and is_within(text, home_text):
        return strip_control("~/" + _relative(text, home_text))
    return display_path(text, cwd)


def _relative(path: str, start: str) -> str:
    # Slicing is exact for a path under start and far cheaper than relpath, which a deep tree calls often.
    if is_within(path, start):
        return path[len(start) :].lstrip(os.sep) or "."
    try:
        return os.path.relpath(path, start)
    except ValueError:  # another drive on Windows: no relative form exists
        return path
