"""File names for memories, made from their names.

Slugs are ASCII. Index links percent-encode every other character (nine
characters for one Chinese character) and index lines are cut at 150, so a
non-ASCII file name would soon cut its own link in half. Characters that do
not survive are replaced by a short hash of the name, which keeps two names
that differ only in them apart.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_SLUG_CHARS = 48
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def slugify(name: str) -> str:
    """Lower-case ASCII words joined by ``-``, plus a hash when anything else was dropped. Never empty."""
    text = unicodedata.normalize("NFKD", name).lower()
    ascii_words = _NOT_ALNUM.sub("-", text.encode("ascii", "ignore").decode("ascii")).strip("-")
    lost = any(ord(c) > 127 and not unicodedata.combining(c) and (c.isalnum()) for c in text)
    slug = ascii_words[:MAX_SLUG_CHARS].rstrip("-")
    if lost or not slug:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug}-{digest}" if slug else f"memory-{digest}"
    return slug


def memory_file_name(name: str) -> str:
    return f"{slugify(name)}.md"


def file_name_problem(file_name: str) -> str | None:
    """Why ``file_name`` cannot name a memory file (a single ``.md`` component), or None."""
    if not file_name or file_name in (".", ".."):
        return "the file name is empty"
    if "/" in file_name or "\\" in file_name:
        return "the file name must not contain a path separator"
    if _CONTROL.search(file_name):
        return "the file name must not contain control characters"
    if file_name.startswith("."):
        return "the file name must not start with '.'"
    if not file_name.endswith(".md"):
        return "the file name must end in .md"
    return None


def has_control_characters(text: str) -> bool:
    return _CONTROL.search(text) is not None
