"""Which paths a tool call touches, as conditional-skill activation should see them."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

# Tools whose second argument is a file-name glob under ``path``: searching ``src`` for
# ``**/*.ts`` counts as touching ``src/**/*.ts``, which a ``src/**/*.ts`` skill glob matches.
_GLOB_ARGUMENT = {"glob": "pattern", "grep_search": "include"}


def touched_paths(tool_name: str, args: Mapping[str, Any]) -> list[str]:
    """The workspace paths named by a call's arguments (shell commands name none we can trust)."""
    base = _text(args.get("path")) or _text(args.get("file_path"))
    glob_key = _GLOB_ARGUMENT.get(tool_name)
    pattern = _text(args.get(glob_key)) if glob_key else None
    if pattern:
        return [posixpath.join(base, pattern) if base else pattern]
    return [base] if base else []


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None
