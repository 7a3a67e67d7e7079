"""Cutting one file to a character cap: keep whole lines from the head and the tail, and say what was cut.

A cut in the middle of a word loses the sentence it was in and gives the model no way
back to it. So the cut falls on a line (preferably a paragraph) boundary, and the
marker names the file, the lines kept and the read_file call that returns the rest.
Chars are Python code points (OpenClaw counts UTF-16 units; they differ only for
characters outside the BMP).
"""

from __future__ import annotations

from math import floor

HEAD_RATIO = 0.75
# A paragraph boundary is preferred to a line boundary when it keeps at least this share of the head.
PARAGRAPH_SHARE = 0.8
_SEPARATOR = "\n\n"
ELLIPSIS = "…"


def cut_marker(name: str, head_lines: int, tail_lines: int, total_lines: int, kept: int, total: int) -> str:
    """Our marker: which lines of ``name`` were kept and how to read the ones left out."""
    first, last = head_lines + 1, total_lines - tail_lines
    kept_lines = []
    if head_lines:
        kept_lines.append(f"lines 1-{head_lines}")
    if tail_lines:
        kept_lines.append(f"lines {last + 1}-{total_lines}")
    shown = " and ".join(kept_lines) or "no whole line"
    return (
        f"[{ELLIPSIS} {name} is cut here to fit the instruction budget: kept {shown} of {total_lines} "
        f"({kept:,} of {total:,} characters). Lines {first}-{last} are left out; read them with "
        f"read_file on {name} (offset {first}, limit {last - first + 1}) when they may matter.]"
    )


def char_marker(name: str, head: int, tail: int, total: int) -> str:
    """For text with no line break to cut at (one long line)."""
    return f"[{ELLIPSIS} {name} is cut here: kept the first {head:,} and last {tail:,} of {total:,} characters; read {name} for the rest.]"


def truncate_middle(content: str, cap: int, name: str) -> str:
    """``content`` unchanged when it fits, else whole head lines + marker + whole tail lines in at most ``cap`` chars.

    ``name`` is the path the marker tells the model to read for the rest.
    """
    total = len(content)
    if total <= cap:
        return content
    lines = content.split("\n")
    n = len(lines)
    # The marker's digits are bounded by the largest numbers it can state, so this size never undercounts.
    overhead = len(cut_marker(name, n, n, n, total, total)) + 2 * len(_SEPARATOR)
    budget = cap - overhead
    if budget > 0 and n > 1:
        head_lines = _head_lines(lines, floor(budget * HEAD_RATIO))
        head_chars = _joined(lines[:head_lines])
        tail_lines = _tail_lines(lines[head_lines:], budget - head_chars)
        if head_lines or tail_lines:
            head = "\n".join(lines[:head_lines])
            tail = "\n".join(lines[n - tail_lines :]) if tail_lines else ""
            kept = len(head) + len(tail)
            marker = cut_marker(name, head_lines, tail_lines, n, kept, total)
            return _SEPARATOR.join(part for part in (head, marker, tail) if part)
    return _char_cut(content, cap, name)


def clamp(text: str, limit: int) -> str:
    """At most ``limit`` chars; an ellipsis shows the cut unless the limit is too small to spare one."""
    if len(text) <= limit:
        return text
    if limit <= 3:
        return text[: max(limit, 0)]
    return text[: limit - 1] + ELLIPSIS


def _joined(lines: list[str]) -> int:
    return sum(len(line) for line in lines) + max(len(lines) - 1, 0)


def _head_lines(lines: list[str], budget: int) -> int:
    """How many leading lines fit ``budget``, ending at a paragraph break when that keeps most of them."""
    size, count = -1, 0
    for line in lines:
        if size + 1 + len(line) > budget:
            break
        size += 1 + len(line)
        count += 1
    size = max(size, 0)
    # Back up to the last blank line, if doing so keeps most of what fits.
    kept = size
    for index in range(count - 1, 0, -1):
        kept -= len(lines[index]) + 1
        if kept < size * PARAGRAPH_SHARE:
            break
        if not lines[index].strip():
            return index
    return count


def _tail_lines(lines: list[str], budget: int) -> int:
    """How many trailing lines fit ``budget`` (never all of ``lines``: something was cut)."""
    size, count = -1, 0
    for line in reversed(lines[1:]):
        if size + 1 + len(line) > budget:
            break
        size += 1 + len(line)
        count += 1
    return count


def _char_cut(content: str, cap: int, name: str) -> str:
    """One long line: keep its first and last characters; the marker still names the file."""
    total = len(content)
    overhead = len(char_marker(name, total, total, total)) + 2 * len(_SEPARATOR)
    budget = cap - overhead
    if budget <= 0:
        return clamp(content, cap)
    head, tail = floor(budget * HEAD_RATIO), budget - floor(budget * HEAD_RATIO)
    return f"{content[:head]}{_SEPARATOR}{char_marker(name, head, tail, total)}{_SEPARATOR}{content[total - tail:]}"
