"""The instruction file names (Qwen Code's ``memory/const.ts``) and the ``context.fileName`` setting."""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_CONTEXT_FILENAME = "QWEN.md"
AGENT_CONTEXT_FILENAME = "AGENTS.md"
# One personal slot at <git root>/.qwen/QWEN.local.md; never part of the upward search.
LOCAL_CONTEXT_FILENAME = "QWEN.local.md"
MEMORY_SECTION_HEADER = "## Qwen Added Memories"
# QWEN.md first so /init keeps writing the file older versions wrote.
DEFAULT_CONTEXT_FILENAMES: tuple[str, ...] = (DEFAULT_CONTEXT_FILENAME, AGENT_CONTEXT_FILENAME)
# The basenames that count towards file_count (custom names such as CLAUDE.md do not).
COUNTED_FILENAMES = frozenset({DEFAULT_CONTEXT_FILENAME, AGENT_CONTEXT_FILENAME, LOCAL_CONTEXT_FILENAME})


def context_filenames(setting: str | Iterable[str] | None) -> tuple[str, ...]:
    """The names to search for, from the ``context.fileName`` setting.

    A string or a list both work; entries are trimmed and blank ones dropped.
    Nothing usable left means the defaults, so a stray ``""`` never disables discovery.
    """
    if setting is None:
        return DEFAULT_CONTEXT_FILENAMES
    entries = [setting] if isinstance(setting, str) else list(setting)
    names = tuple(dict.fromkeys(e.strip() for e in entries if isinstance(e, str) and e.strip()))
    return names or DEFAULT_CONTEXT_FILENAMES


def current_context_filename(names: str | Iterable[str] | None) -> str:
    """The file /init writes: the first non-empty name.

    Taking ``names[0]`` blindly once made /init write a file nobody read when the
    list started with a blank entry.
    """
    return context_filenames(names)[0]
