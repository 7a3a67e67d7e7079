"""A MEMORY.md as it is shown in the system prompt: within 200 lines and 25,000
characters, with a warning when it had to be cut."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from app.context.memory.textunits import utf16_len, utf16_prefix

EMPTY_INDEX_TEXT = "Your MEMORY.md is currently empty. When you save new memories, they will appear here."


def index_for_prompt(content: str) -> str:
    """The trimmed index, cut to the limits (at a line end) with a warning, or the empty-index sentence."""
    trimmed = content.strip()
    if not trimmed:
        return EMPTY_INDEX_TEXT
    # Here, not at the top: the index writer (and what it imports) is not needed by a session
    # start without a MEMORY.md, which is every headless turn in a project without memories.
    from app.context.memory.index import MAX_INDEX_BYTES, MAX_INDEX_LINES

    lines = trimmed.split("\n")
    size = utf16_len(trimmed)
    over_lines, over_size = len(lines) > MAX_INDEX_LINES, size > MAX_INDEX_BYTES
    if not over_lines and not over_size:
        return trimmed
    text = "\n".join(lines[:MAX_INDEX_LINES]) if over_lines else trimmed
    if utf16_len(text) > MAX_INDEX_BYTES:
        head = utf16_prefix(text, MAX_INDEX_BYTES)
        cut = head.rfind("\n")
        text = head[:cut] if cut > 0 else head
    reason = index_cut_reason(len(lines), size, over_lines=over_lines, over_size=over_size)
    return (
        f"{text}\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files."
    )


def index_cut_reason(line_count: int, size: int, *, over_lines: bool, over_size: bool) -> str:
    from app.context.memory.index import MAX_INDEX_BYTES, MAX_INDEX_LINES

    kilobytes = _one_decimal(size / 1024)
    if over_lines and over_size:
        return f"{line_count} lines and {kilobytes} KB"
    if over_lines:
        return f"{line_count} lines (limit: {MAX_INDEX_LINES})"
    return f"{kilobytes} KB (limit: {_one_decimal(MAX_INDEX_BYTES / 1024)} KB) \u2014 index entries are too long"


def _one_decimal(value: float) -> str:
    # JavaScript's toFixed rounds an exact half up (0.25 -> "0.3"); Python's format rounds to even.
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
