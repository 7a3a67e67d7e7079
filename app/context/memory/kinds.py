"""The vocabulary of auto-memory: the four topic types and the three scopes."""

from __future__ import annotations

from enum import StrEnum


class MemoryType(StrEnum):
    """What a memory is about; each type is a sub-directory of a scope root."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


class MemoryScope(StrEnum):
    """Who a memory belongs to: this project, this person everywhere, or the repository's team."""

    PROJECT = "project"
    USER = "user"
    TEAM = "team"


AUTO_MEMORY_TYPES: tuple[str, ...] = tuple(t.value for t in MemoryType)
AUTO_MEMORY_SCHEMA_VERSION = 1


def memory_type(value: object) -> MemoryType | None:
    """The type named by a frontmatter value, or None when it is not one of the four."""
    if not isinstance(value, str):
        return None
    try:
        return MemoryType(value.strip())
    except ValueError:
        return None
