"""Lengths in UTF-16 code units, the unit the memory limits are defined in.

The limits come from a JavaScript implementation, where a string's length
counts UTF-16 code units: an emoji counts two. Measuring the same way keeps
the limits identical; cutting never splits a surrogate pair, so no lone half
of a character is ever written.
"""

from __future__ import annotations

ELLIPSIS = "\u2026"


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` at most ``units`` code units long."""
    if units <= 0:
        return ""
    if len(text) <= units // 2 or utf16_len(text) == len(text):
        return text[:units]
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > units:
            return text[:index]
    return text


def truncate_with_ellipsis(text: str, limit: int) -> str:
    """``text`` when it fits in ``limit`` units, else its first ``limit - 1`` units,
    right-trimmed, plus an ellipsis."""
    if utf16_len(text) <= limit:
        return text
    return utf16_prefix(text, limit - 1).rstrip() + ELLIPSIS


def utf16_sort_key(text: str) -> bytes:
    """Orders strings by UTF-16 code units (as JavaScript's default sort does), so
    files sort the same on every machine whatever its locale."""
    return text.encode("utf-16-be", "surrogatepass")
