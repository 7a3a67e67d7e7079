"""Text as tools read it and show it to the model."""

from __future__ import annotations

import os
from pathlib import Path

from app.core.tools.base import ToolContext
from app.core.tools.errors import ToolError
from app.core.tools.filesystem import decode_utf8, special_kind

# Git's heuristic: a NUL byte near the start means the file is not text.
BINARY_SNIFF_BYTES = 8192


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def load_bytes(ctx: ToolContext, path: Path) -> bytes:
    """The content of an existing file, or a ToolError a person understands."""
    shown = ctx.display(path)
    if not ctx.fs.exists(path):
        raise ToolError(f"{shown} does not exist")
    if ctx.fs.is_dir(path):
        raise ToolError(f"{shown} is a directory; use list_directory to see what it contains")
    if not ctx.fs.is_file(path):
        kind = special_kind(os.stat(path).st_mode) or "not a regular file"
        raise ToolError(f"{shown} is {kind}, not a regular file; only regular files can be read or edited")
    return ctx.fs.read_bytes(path)


def load_text(ctx: ToolContext, path: Path) -> str:
    """The content of an existing text file, or a ToolError a person understands."""
    return text_of(load_bytes(ctx, path), ctx.display(path))


def text_of(data: bytes, shown: str) -> str:
    """A file's bytes as text, or a ToolError saying why they are not."""
    if looks_binary(data):
        raise ToolError(f"{shown} looks like a binary file (it contains NUL bytes) and cannot be shown as text")
    return decode_utf8(data, shown)


def split_lines(text: str) -> list[str]:
    """Lines without their endings. Only "\\n" splits: ``str.splitlines`` also breaks
    on form feeds and Unicode separators, which would shift line numbers."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def count_lines(text: str) -> int:
    return len(split_lines(text))


def clip_middle(text: str, limit: int, *, omitted: int = 0) -> str:
    """At most about ``limit`` chars, keeping the head and the tail.

    The start of an output says what ran and the end says how it finished;
    the middle is what can go. ``omitted`` chars were already cut from that
    middle before (the shell keeps only both ends of a huge output); the count
    shown includes them.
    """
    if limit <= 0 or len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    omitted += len(text) - head - tail
    return f"{text[:head]}\n… {omitted} chars omitted …\n{text[-tail:]}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 line``, ``3 lines``; ``many`` for words that don't just take an "s"."""
    return f"{count} {word}" if count == 1 else f"{count} {many or word + 's'}"
