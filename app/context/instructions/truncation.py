"""Cutting one file to a character cap: keep the head and the tail, say what was cut (OpenClaw §1.3).

Chars are Python code points. OpenClaw counts UTF-16 units; the two agree except
for characters outside the BMP (most emoji), which count 1 here and 2 there.
Code points cannot split a surrogate pair, so no surrogate-safe slicing is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from math import floor

HEAD_RATIO = 0.75
TAIL_RATIO = 0.25
# With fewer content chars than this the long marker would crowd out the file: use the compact one.
MIN_CHARS_FOR_LONG_MARKER = 16
_PASSES = 3
_SEPARATOR = "\n\n"
ELLIPSIS = "…"


def long_marker(name: str, head: int, tail: int, total: int) -> str:
    return (
        f"[...truncated, read {name} for full content...]\n"
        f"{ELLIPSIS}(truncated {name}: kept {head}+{tail} chars of {total}){ELLIPSIS}"
    )


def compact_marker(head: int, tail: int, total: int) -> str:
    return f"[{ELLIPSIS}truncated {head}+{tail}/{total}]"


def truncate_middle(content: str, cap: int, name: str) -> str:
    """``content`` unchanged when it fits, else head + marker + tail in at most ``cap`` chars.

    ``name`` is the path the marker tells the model to read for the rest.
    """
    total = len(content)
    if total <= cap:
        return content

    def long_size(h: int, t: int) -> int:
        return len(long_marker(name, h, t, total)) + 2 * len(_SEPARATOR)

    head, tail = _split(cap, long_size)
    if head + tail >= MIN_CHARS_FOR_LONG_MARKER:
        return f"{content[:head]}{_SEPARATOR}{long_marker(name, head, tail, total)}{_SEPARATOR}{_tail(content, tail)}"
    head, tail = _split(cap, lambda h, t: len(compact_marker(h, t, total)))
    return f"{content[:head]}{compact_marker(head, tail, total)}{_tail(content, tail)}"


def clamp(text: str, limit: int) -> str:
    """At most ``limit`` chars; an ellipsis shows the cut unless the limit is too small to spare one."""
    if len(text) <= limit:
        return text
    if limit <= 3:
        return text[: max(limit, 0)]
    return text[: limit - 1] + ELLIPSIS


def _split(cap: int, overhead: Callable[[int, int], int]) -> tuple[int, int]:
    """Head and tail sizes so that head + tail + overhead fits ``cap``.

    The marker states the sizes, so its length depends on them: a few passes
    settle the digits, then the tail (then the head) shrinks until it fits.
    """
    head = tail = 0
    for _ in range(_PASSES):
        budget = max(cap - overhead(head, tail), 0)
        new = (floor(budget * HEAD_RATIO), floor(budget * TAIL_RATIO))
        if new == (head, tail):
            break
        head, tail = new
    while head + tail + overhead(head, tail) > cap and (head or tail):
        if tail:
            tail -= 1
        else:
            head -= 1
    if head == 0 and tail == 0:
        head = 1  # never a marker alone: one char still shows what the file starts with
    return head, tail


def _tail(content: str, size: int) -> str:
    return content[len(content) - size :] if size else ""
