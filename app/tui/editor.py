"""The person's own editor for one file: $VISUAL, then $EDITOR, then vi.

The command is split into words and run directly, never handed to a shell, so a
file name cannot turn into a command. The caller suspends the app around it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

FALLBACK_EDITOR = "vi"


class EditorError(Exception):
    """No usable editor; the message says what to set."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The editor's argv (without the file). Raises EditorError when it cannot be found."""
    env = os.environ if env is None else env
    value = (env.get("VISUAL") or "").strip() or (env.get("EDITOR") or "").strip() or FALLBACK_EDITOR
    if shutil.which(value):  # a program whose path has spaces in it is still one program
        return [value]
    try:
        words = shlex.split(value)
    except ValueError as error:
        raise EditorError(f"Cannot read the editor setting {value!r} ({error}); set $VISUAL or $EDITOR.") from None
    if not words or shutil.which(words[0]) is None:
        raise EditorError(f"Editor '{words[0] if words else value}' not found; set $VISUAL or $EDITOR to an installed editor.")
    return words


def run_editor(command: list[str], path: Path) -> int:
    """Run the editor on ``path`` until it exits; its exit status. Raises EditorError."""
    try:
        return subprocess.run([*command, str(path)], check=False).returncode
    except OSError as error:
        raise EditorError(f"Could not start the editor '{command[0]}': {error.strerror or error}") from None
