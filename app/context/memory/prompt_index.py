"""A MEMORY.md as it is shown in the system prompt: within 200 lines and 25,000
characters, with a warning when it had to be cut.

An index past its limits is never rewritten (a person may have written it), so
the links the rebuild appends for new memories land below the loaded head.
Those memories stay reachable: recall ranks every memory file by its content,
not by the index, and the warning (here and in the memory panel) says how many
memories are linked only below the head and names the first few."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from app.context.memory.index import MAX_INDEX_BYTES, MAX_INDEX_LINES
from app.context.memory.textunits import utf16_len, utf16_prefix

EMPTY_INDEX_TEXT = "Your MEMORY.md is currently empty. When you save new memories, they will appear here."


def index_for_prompt(content: str) -> str:
    """The trimmed index, cut to the limits (at a line end) with a warning, or the empty-index sentence."""
    trimmed = content.strip()
    if not trimmed:
        return EMPTY_INDEX_TEXT
    lines = trimmed.split("\n")
    size = utf16_len(trimmed)
    over_lines, over_size = len(lines) > MAX_INDEX_LINES, size > MAX_INDEX_BYTES
    if not over_lines and not over_size:
        return trimmed
    text = loaded_head(trimmed)
    reason = index_cut_reason(len(lines), size, over_lines=over_lines, over_size=over_size)
    warning = (
        f"{text}\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files."
    )
    below = links_below_head(trimmed)
    return f"{warning}\n> {past_head_note(below)}" if below else warning


def loaded_head(trimmed: str) -> str:
    """The part of a (trimmed) index the prompt loads: 200 lines, then 25,000 code units at a line end."""
    lines = trimmed.split("\n")
    text = "\n".join(lines[:MAX_INDEX_LINES]) if len(lines) > MAX_INDEX_LINES else trimmed
    if utf16_len(text) > MAX_INDEX_BYTES:
        head = utf16_prefix(text, MAX_INDEX_BYTES)
        cut = head.rfind("\n")
        text = head[:cut] if cut > 0 else head
    return text


def links_below_head(content: str) -> list[str]:
    """The memories (relative paths) an index links to only below the part the prompt loads."""
    from app.context.memory.index import link_targets  # index imports this module's limits' users

    trimmed = content.strip()
    head = loaded_head(trimmed)
    if len(head) == len(trimmed):
        return []
    in_head = {target for line in head.split("\n") for target in link_targets(line)}
    below: dict[str, None] = {}
    for line in trimmed[len(head):].split("\n"):
        for target in link_targets(line):
            if target not in in_head:
                below[target] = None
    return list(below)


MAX_NAMED_BELOW = 3


def past_head_note(below: list[str]) -> str:
    """What the prompt and the panel say about memories linked only below the loaded head."""
    named = ", ".join(below[:MAX_NAMED_BELOW]) + (f" and {len(below) - MAX_NAMED_BELOW} more" if len(below) > MAX_NAMED_BELOW else "")
    count = f"{len(below)} memory is" if len(below) == 1 else f"{len(below)} memories are"
    return f"{count} linked only below the loaded part ({named}); recall still finds them by their content."


def index_cut_reason(line_count: int, size: int, *, over_lines: bool, over_size: bool) -> str:
    kilobytes = _one_decimal(size / 1024)
    if over_lines and over_size:
        return f"{line_count} lines and {kilobytes} KB"
    if over_lines:
        return f"{line_count} lines (limit: {MAX_INDEX_LINES})"
    return f"{kilobytes} KB (limit: {_one_decimal(MAX_INDEX_BYTES / 1024)} KB) \u2014 index entries are too long"


def _one_decimal(value: float) -> str:
    # JavaScript's toFixed rounds an exact half up (0.25 -> "0.3"); Python's format rounds to even.
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
