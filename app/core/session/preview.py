"""A one-line, length-capped preview of a prompt, for session lists and titles."""

from __future__ import annotations

PREVIEW_CHARS = 200


def one_line_preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """``text`` with whitespace runs collapsed to single spaces, cut to ``limit`` characters."""
    # Only the start can show, so a 100 MB prompt is never scanned in full.
    head = text[: limit * 4 + 1]
    flat = " ".join(head.split())
    if len(flat) <= limit and len(head) == len(text):
        return flat
    return flat[: limit - 1].rstrip() + "…"
