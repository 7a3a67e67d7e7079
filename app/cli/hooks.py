"""`agentctx-tui hooks list|trust|untrust`: the configured hooks; trust/untrust are folder trust (`agentctx-tui trust`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.exit_codes import EXIT_OK


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("hooks", help="the configured hooks and where each came from", description="Hooks from user and project settings.")
    parser.set_defaults(run=run)
    sub = parser.add_subparsers(dest="action", required=True)
    for name, text in (
        ("list", "every hook and where it came from"),
        ("trust", "trust this folder: its project settings and hooks apply (same as 'agentctx-tui trust')"),
        ("untrust", "stop trusting this folder (same as 'agentctx-tui untrust')"),
    ):
        command = sub.add_parser(name, help=text)
        command.add_argument("-C", "--cwd", type=Path)


def run(args: argparse.Namespace) -> int:
    if args.action in ("trust", "untrust"):
        from app.cli.trust import change_trust

        return change_trust(args.action == "trust", None, args.cwd)

    from app.cli.settings import project_settings
    from app.hooks.bridge import build_hooks, hooks_table
    from app.trust import FolderTrust

    paths, settings = project_settings(args.cwd)
    bridge, problems = build_hooks(
        settings.hooks,
        cwd=paths.cwd,
        project_root=paths.project_root,
        config_dir=paths.config_dir,
        session_id="",
        report=lambda text: None,
        state_dir=paths.project_state_dir,
    )
    print(hooks_table(bridge, FolderTrust(paths.config_dir).state(paths.project_root)))
    for problem in problems:
        print(f"problem: {problem}")
    if settings.project_layer.ignored:
        print("This folder is not trusted: its project hooks are not loaded ('agentctx-tui trust' applies them).")
    return EXIT_OK
