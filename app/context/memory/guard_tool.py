"""The team-memory guard on the main agent's writes: a secret, or an unsafe team root, refuses the call.

Team memory is committed with the repository, so what would land there is
scanned first; the matched value is never repeated, only the kind of secret.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from app.context.memory.guard import check_team_memory_secrets
from app.context.memory.paths import MemoryPaths, TeamMemoryRootSecurityError, check_team_root, is_team_auto_mem_path
from app.core.tools.base import ToolContext

WRITE_TOOLS = ("write_file", "edit")


def _content_after(tool_name: str, path: Path, args: dict[str, Any]) -> str:
    if tool_name == "write_file":
        return str(args.get("content") or "")
    try:
        current = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        current = ""
    old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
    return current.replace(old, new) if old else current + new


def team_secret_refusal(mem: MemoryPaths, tool_name: str, args: dict[str, Any], ctx: ToolContext) -> str | None:
    if tool_name not in WRITE_TOOLS or not isinstance(args.get("path"), str):
        return None
    raw = args["path"]
    path = Path(raw) if os.path.isabs(raw) else ctx.root / raw
    if not is_team_auto_mem_path(mem.team_root, path):
        return None
    try:
        check_team_root(mem.workspace_root, mem.team_root)
    except TeamMemoryRootSecurityError as exc:
        return f"The write to team memory was refused: {exc}."
    findings = check_team_memory_secrets(mem.team_root, path, _content_after(tool_name, path, args))
    if not findings:
        return None
    labels = ", ".join(sorted({f.label for f in findings}))
    return (
        f"The write to team memory was refused: it contains what looks like a secret ({labels}). "
        "Team memory is committed with the repository; keep credentials out of it."
    )
