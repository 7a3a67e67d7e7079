"""What the instruction-file tests share: writing a file of a test repository."""

from __future__ import annotations

from pathlib import Path


def write(path: Path, text: str | bytes) -> Path:
    """``text`` at ``path`` (parents made); bytes as given, so a test can write what is not UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
