"""Trusting a test's workspace, for tests whose settings live in the project layer on purpose.

A project's ``.qwen/settings.*`` applies only in a trusted folder; the user's answer is
kept in the (per-test) user config dir, exactly as ``agentctx-tui trust`` keeps it.
"""

from __future__ import annotations

from pathlib import Path

from app.paths import Paths, find_project_root
from app.trust import FolderTrust


def trust_folder(folder: Path | Paths, *, trusted: bool = True) -> None:
    """Record the user's answer for ``folder``'s project root (a Paths brings its own config dir)."""
    if isinstance(folder, Paths):
        FolderTrust(folder.config_dir).remember(folder.project_root, trusted)
        return
    paths = Paths.for_cwd(folder)
    FolderTrust(paths.config_dir).remember(find_project_root(Path(folder)), trusted)
