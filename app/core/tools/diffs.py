"""Unified diffs for the approval modal."""

from __future__ import annotations

import difflib

from app.core.tools.text import plural, split_lines

PREVIEW_LINES = 100


def unified_diff(before: str, after: str, label: str) -> str:
    if before == after:
        return "(no changes)"
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{label}",
        tofile=f"b/{label}",
    )
    # A last line without a newline would run into the next diff line.
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip("\n")


def new_file_preview(content: str) -> str:
    lines = split_lines(content)
    shown = "\n".join(lines[:PREVIEW_LINES])
    more = len(lines) - PREVIEW_LINES
    note = f"\n… {plural(more, 'more line')}" if more > 0 else ""
    return f"new file, {plural(len(lines), 'line')}\n{shown}{note}".rstrip("\n")
