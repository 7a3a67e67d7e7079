"""Whether the main agent wrote memory files itself during a turn.

When it did (the person said "remember this"), extracting memories from the
same turn again would only duplicate them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from app.context.memory.paths import MemoryPaths, is_auto_mem_path

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


def writes_to_memory(calls: Iterable[tuple[str, Mapping[str, Any] | str]], paths: MemoryPaths, cwd: Path | None = None) -> bool:
    """Whether any ``(tool name, arguments)`` call writes into the project, user or team memory."""
    base = cwd or paths.workspace_root
    roots = (paths.project_root, paths.user_root, paths.team_root)
    for name, arguments in calls:
        target = written_path(name, arguments)
        if target is None:
            continue
        absolute = Path(target) if Path(target).is_absolute() else base / target
        if any(is_auto_mem_path(root, absolute) for root in roots):
            return True
    return False
