"""Which kind of memory an instruction file is (the label hook events carry)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path

from app.context.instructions.fspaths import is_within
from app.context.instructions.names import LOCAL_CONTEXT_FILENAME
from app.paths import QWEN_DIR


class MemoryType(StrEnum):
    EXTENSION = "extension"
    USER = "user"
    LOCAL = "local"
    PROJECT = "project"


def classify_memory_type(
    path: Path,
    *,
    global_dir: Path,
    home: Path,
    git_root: Path | None,
    extension_paths: Iterable[Path] = (),
    extension_dirs: Iterable[Path] = (),
) -> MemoryType:
    """First match wins, in the order Qwen Code checks (extensions do not exist yet; the hook stays)."""
    text = str(path)
    if text in {str(p) for p in extension_paths} or any(is_within(text, d) for d in extension_dirs):
        return MemoryType.EXTENSION
    if is_within(text, global_dir):
        return MemoryType.USER
    if git_root is not None:
        if text == os.path.join(git_root, QWEN_DIR, LOCAL_CONTEXT_FILENAME):
            return MemoryType.LOCAL
        if is_within(text, git_root):
            return MemoryType.PROJECT
    if os.path.dirname(text) == str(home):
        return MemoryType.USER
    return MemoryType.PROJECT
