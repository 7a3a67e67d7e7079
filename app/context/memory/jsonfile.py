"""The state files' JSON: written atomically, indented by two spaces, ending in a newline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.fsutil import atomic_write_text


def write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The object in ``path``; None when the file is missing, unreadable or not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
