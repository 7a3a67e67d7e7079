"""Skill frontmatter that is plainly a mapping of strings, read without YAML.

Every start-up parses the bundled skills; importing PyYAML for them cost a headless
turn about 10 ms of its ~0.3 s (`python -X importtime -m app -p ...`: `yaml` 10.0 ms
cumulative, on this machine). Nearly every SKILL.md holds only ``key: text`` lines,
``key: "text"`` and short ``- item`` lists, so those are read here; anything else
(a number, a boolean, a nested mapping, an escape, a comment, a flow list...) returns
``None`` and goes through YAML as before. For what it accepts, the result is exactly
what ``yaml.load(block, CSafeLoader)`` gives (checked against it in
tests/unit/context/test_plain_frontmatter.py, on every bundled skill and on
generated blocks).
"""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# First characters after which YAML reads something other than a plain string
# (indicators, and the starts of numbers, dates and the merge/value keys).
_NOT_PLAIN_START = frozenset("'\"[]{}|>&*!%@`#,?:-<=~+.0123456789")
# Words YAML 1.1 (PyYAML's resolver) reads as booleans or null.
_SPECIAL_WORDS = frozenset(
    "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL".split()
)


def plain_frontmatter(block: str) -> dict[str, Any] | None:
    """The fields of a frontmatter block made only of plain strings and lists of them, else None."""
    data: dict[str, Any] = {}
    items: list[str] | None = None  # the list the ``- item`` lines below a bare ``key:`` go into
    indent: int | None = None  # their indentation (YAML wants it the same for every item)
    for line in block.split("\n"):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue  # blank lines and whole-line comments mean nothing to YAML, even inside a list
        if items is not None and stripped.startswith("- "):
            level = len(line) - len(stripped)
            if indent is None:
                indent = level
            elif level != indent:
                return None
            item = _scalar(stripped[2:].strip(" "))
            if item is None:
                return None
            items.append(item)
            continue
        if items is not None and not items:
            return None  # a bare `key:` is null to YAML; left to it
        items, indent = None, None
        key, sep, rest = line.partition(":")
        if not sep or not _KEY.fullmatch(key) or key in _SPECIAL_WORDS or key in data:
            return None
        if not rest:
            items = data[key] = []
            continue
        if not rest.startswith(" "):
            return None
        value = _scalar(rest.strip(" "))  # YAML trims spaces only (NEL, NBSP... are not its spaces)
        if value is None:
            return None
        data[key] = value
    if (items is not None and not items) or not data:
        return None  # a bare `key:` at the end is null; an empty block is None to YAML
    return data


def _scalar(value: str) -> str | None:
    """A one-line value as the string YAML reads it, or None when YAML could read it otherwise."""
    if not value or not value.isprintable() or "\t" in value:
        return None
    if value[0] == '"':
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != '"' or '"' in inner or "\\" in inner:
            return None
        return inner
    if value[0] in _NOT_PLAIN_START or value in _SPECIAL_WORDS:
        return None
    if ": " in value or " #" in value or value.endswith(":"):
        return None
    return value
