"""The rule for text appended after the base prompt."""

from __future__ import annotations

SEPARATOR = "\n\n---\n\n"


def suffix(text: str | None) -> str:
    """``SEPARATOR + text.strip()``, or ``""`` when nothing is left: never a separator with nothing after it."""
    trimmed = (text or "").strip()
    return f"{SEPARATOR}{trimmed}" if trimmed else ""
