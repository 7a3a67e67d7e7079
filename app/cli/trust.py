"""`agentctx-tui trust [PATH]` and `agentctx-tui untrust [PATH]`: whether a folder's project layer applies.

PATH defaults to the current project root (the git root, else the working directory).
Both print what the folder's project layer changes, so the answer is an informed one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.exit_codes import EXIT_OK, EXIT_USAGE


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Two subcommands, ``trust`` and ``untrust``."""
    for action, verb, effect, summary in (
        ("trust", "Trust", "apply", "trust a folder: its project settings, hooks and skill grants apply"),
        ("untrust", "Stop trusting", "are ignored", "stop trusting a folder: its project layer is ignored"),
    ):
        parser = subparsers.add_parser(
            action,
            help=summary,
            description=f"{verb} a folder: its .qwen/settings.yaml, .qwen/settings.json, hooks and project skills' tool grants "
            f"{effect} (a parent covers its children).",
        )
        parser.set_defaults(run=run, trusted=action == "trust")
        parser.add_argument("path", nargs="?", type=Path, help="the folder (default: the current project root)")
        parser.add_argument("-C", "--cwd", type=Path, help="work in this directory instead of the current one")


def run(args: argparse.Namespace) -> int:
    return change_trust(args.trusted, args.path, args.cwd)


def change_trust(trusted: bool, path: Path | None, cwd: Path | None) -> int:
    from app.folder_changes import folder_changes
    from app.paths import Paths
    from app.trust import FolderTrust

    start = path if path is not None else cwd
    if start is not None and not start.is_dir():
        print(f"agentctx-tui: {start} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    paths = Paths.for_cwd(start)
    folder = paths.cwd if path is not None else paths.project_root
    FolderTrust(paths.config_dir).remember(folder, trusted)
    changes = folder_changes(Paths.for_cwd(folder))
    if trusted:
        print(f"Trusted {folder} (and every folder under it).")
        print("Its project layer now applies:" if changes else "It brings no project settings, hooks or tool grants.")
    else:
        print(f"Not trusted: {folder}.")
        print("Its project layer is ignored:" if changes else "It brings no project settings, hooks or tool grants.")
    for line in changes:
        print(f"  - {line}")
    return EXIT_OK
