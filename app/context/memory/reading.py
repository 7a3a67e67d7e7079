"""Reading a memory file without trusting its size or its encoding."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# Far more than any useful memory; a runaway file is read only this far.
MAX_MEMORY_FILE_BYTES = 256 * 1024


@dataclass(frozen=True)
class FileText:
    text: str
    size: int
    mtime: float  # of the file that was read (stat'ed through the open handle)
    truncated: bool
    problems: tuple[str, ...] = ()


def read_capped(path: Path | str, limit: int = MAX_MEMORY_FILE_BYTES) -> FileText:
    """The first ``limit`` bytes of ``path`` as text. Raises OSError."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
        stat = os.fstat(handle.fileno())
    size = max(len(data), stat.st_size)
    truncated = len(data) > limit
    problems: list[str] = []
    if truncated:
        data = data[:limit]
        problems.append(f"the file is {size:,} bytes; only the first {limit:,} were read")
    text, clean = decode_utf8(data, truncated=truncated)
    if not clean:
        problems.append("the file is not valid UTF-8; unreadable bytes were replaced")
    return FileText(text=text, size=size, mtime=stat.st_mtime, truncated=truncated, problems=tuple(problems))


def decode_utf8(data: bytes, *, truncated: bool) -> tuple[str, bool]:
    """The text and whether it decoded cleanly; a character cut by truncation is dropped, not flagged."""
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError as error:
        # A multi-byte character cut in half at the cap is our doing, not the file's.
        if truncated and error.start >= len(data) - 3:
            try:
                return data[: error.start].decode("utf-8"), True
            except UnicodeDecodeError:
                pass
    return data.decode("utf-8", errors="replace"), False



def read_text_no_follow(path: Path, limit: int = MAX_MEMORY_FILE_BYTES) -> str | None:
    """The first ``limit`` bytes of ``path`` as text, or None when it is missing, unreadable
    or a symlink. For files read into prompts or compared before a rewrite: a symlink
    planted in their place must not pull some other file in."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError:
            return None
    truncated = len(data) > limit
    text, _ = decode_utf8(data[:limit], truncated=truncated)
    return text
