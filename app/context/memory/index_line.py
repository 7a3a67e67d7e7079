"""One pointer line of a MEMORY.md index: ``- [<title>](<encodedRelPath>) — <description>``.

Titles and descriptions come from files anyone (or any model) may have written,
and team indexes are committed and read into every collaborator's prompt, so
fields are cleaned of anything that could smuggle instructions or break the
Markdown, and link targets are percent-encoded (decoding gives back the exact
relative path, so the link always leads to the real file).
"""

from __future__ import annotations

import re

from app.context.memory.textunits import truncate_with_ellipsis

MAX_INDEX_LINE_CHARS = 150
MAX_INDEX_FIELD_CHARS = 120
MAX_INDEX_PATH_CODE_POINTS = 120
INDEX_SEPARATOR = " \u2014 "  # space, em dash, space

_CONTROL = re.compile(r"[\u0000-\u001f\u007f-\u009f]")
# Zero-width characters, bidirectional overrides and isolates, the byte-order mark.
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_WHITESPACE = re.compile(r"\s+")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-/")


def sanitize_index_field(value: str) -> str:
    """A title or description made safe for one index line, in six steps (the order matters)."""
    value = _CONTROL.sub(" ", value)
    value = _INVISIBLE.sub("", value)
    value = value.replace("`", "'")
    value = value.replace("](", "] (")
    value = _WHITESPACE.sub(" ", value).strip()
    return truncate_with_ellipsis(value, MAX_INDEX_FIELD_CHARS)


def clean_index_text(line: str) -> str:
    """A whole index line read back from disk, without control or invisible characters (the size limits of
    the whole index still apply when it enters the prompt)."""
    return _INVISIBLE.sub("", _CONTROL.sub(" ", line))


def encode_index_path_target(rel_path: str) -> str:
    """The first 120 code points of ``rel_path``, every byte outside ``[A-Za-z0-9._~-/]``
    written as ``%XX`` (upper case) of its UTF-8 encoding."""
    pieces: list[str] = []
    for char in rel_path[:MAX_INDEX_PATH_CODE_POINTS]:
        if char in _UNRESERVED:
            pieces.append(char)
        else:
            pieces.extend(f"%{byte:02X}" for byte in _utf8(char))
    return "".join(pieces)


def index_line(title: str, rel_path: str, description: str, fallback: str) -> str:
    """The full line before the length limit; ``fallback`` (the type) stands in for an empty field."""
    shown_title = sanitize_index_field(title) or fallback
    shown_description = sanitize_index_field(description) or fallback
    return f"- [{shown_title}]({encode_index_path_target(rel_path)}){INDEX_SEPARATOR}{shown_description}"


def limit_index_line(line: str) -> str:
    return truncate_with_ellipsis(line, MAX_INDEX_LINE_CHARS)


def _utf8(char: str) -> bytes:
    # File names that are not valid UTF-8 reach Python as lone surrogates
    # (surrogateescape); encoding them back gives the file's real bytes.
    try:
        return char.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return char.encode("utf-8", "surrogatepass")
