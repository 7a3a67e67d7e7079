"""Which file a write tool call targets: how the memory manager tells the main agent wrote memory itself.

When it did (the person said "remember this"), extracting memories from the
same turn again would only duplicate them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

MEMORY_WRITE_TOOLS = frozenset({"write_file", "edit", "replace", "create_file"})
MEMORY_PATH_ARGUMENT_KEYS = ("file_path", "path", "target_file")


def written_path(tool_name: str, arguments: Mapping[str, Any] | str) -> str | None:
    """The file a writing tool call targets, or None for any other call."""
    if tool_name not in MEMORY_WRITE_TOOLS:
        return None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return None
    if not isinstance(arguments, Mapping):
        return None
    for key in MEMORY_PATH_ARGUMENT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None
