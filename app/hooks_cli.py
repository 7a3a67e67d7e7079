"""`agentctx-tui hooks list|trust|untrust`: the configured hooks, and whether this folder may run its own."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2


def hooks_command(argv: Sequence[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    parser = parser_class(prog="agentctx-tui hooks", description="Hooks from user and project settings.")
    sub = parser.add_subparsers(dest="action", required=True)
    for name, text in (("list", "every hook and where it came from"), ("trust", "let this folder's project hooks run"), ("untrust", "stop this folder's project hooks")):
        command = sub.add_parser(name, help=text)
        command.add_argument("-C", "--cwd", type=Path)
    args = parser.parse_args(argv)

    from app.cli_settings import settings_for_cli
    from app.context.hooks.bridge import build_hooks, hooks_table
    from app.context.hooks.trust import FolderTrust
    from app.paths import Paths

    paths = Paths.for_cwd(args.cwd)
    settings = settings_for_cli(paths)
    if settings is None:
        return EXIT_USAGE
    trust = FolderTrust(paths.config_dir)
    if args.action in ("trust", "untrust"):
        trust.remember(paths.project_root, args.action == "trust")
        print(f"{paths.project_root}: project hooks {'trusted' if args.action == 'trust' else 'not trusted'}")
        return EXIT_OK
    bridge, problems = build_hooks(
        settings.hooks,
        cwd=paths.cwd,
        project_root=paths.project_root,
        config_dir=paths.config_dir,
        session_id="",
        report=lambda text: None,
        state_dir=paths.project_state_dir,
    )
    print(hooks_table(bridge, trust.state(paths.project_root)))
    for problem in problems:
        print(f"problem: {problem}")
    return EXIT_OK
