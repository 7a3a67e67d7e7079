"""Where a skill's off switch is kept: a project's skills per project, everyone else's in settings.

Turning off a skill that came with a repository is about that repository: it is kept in
the user's data for that project (``disabled-skills.json``), never in the user-wide
``skills.disabled`` (which would turn off a same-named skill in every project) and never
in the repository's own files (which belong to whoever wrote them).
"""

from __future__ import annotations

import json
from pathlib import Path

from app.fsutil import atomic_write_text
from app.paths import Paths, ensure_private_dir

FILE_NAME = "disabled-skills.json"


def project_switch_file(paths: Paths) -> Path:
    return paths.project_state_dir / FILE_NAME


def project_disabled(paths: Paths) -> list[str]:
    """The names turned off for this project; an unreadable file counts as none (and is rewritten on the next change)."""
    try:
        data = json.loads(project_switch_file(paths).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = data.get("disabled") if isinstance(data, dict) else None
    return sorted({str(n).lower() for n in names if isinstance(n, str)}) if isinstance(names, list) else []


def set_project_disabled(paths: Paths, name: str, disabled: bool) -> Path:
    names = set(project_disabled(paths))
    (names.add if disabled else names.discard)(name.lower())
    path = project_switch_file(paths)
    ensure_private_dir(path.parent)
    atomic_write_text(path, json.dumps({"disabled": sorted(names)}, indent=2) + "\n", mode=0o600)
    return path
