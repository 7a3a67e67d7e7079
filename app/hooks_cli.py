"""`agentctx-tui hooks list|trust|untrust`: the configured hooks; trust/untrust are folder trust (`agentctx-tui trust`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2


def hooks_command(argv: Sequence[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    parser = parser_class(prog="agentctx-tui hooks", description="Hooks from user and project settings.")
    sub = parser.add_subparsers(dest="action", required=True)
    for name, text in (
        ("list", "every hook and where it came from"),
        ("trust", "trust this folder: its project settings and hooks apply (same as 'agentctx-tui trust')"),
        ("untrust", "stop trusting this folder (same as 'agentctx-tui untrust')"),
    ):
        command = sub.add_parser(name, help=text)
        command.add_argument("-C", "--cwd", type=Path)
    args = parser.parse_args(argv)
    if args.action in ("trust", "untrust"):
        from app.trust_cli import change_trust

        return change_trust(args.action == "trust", None, args.cwd)

    from app.cli_settings import settings_for_cli
    from app.hooks.bridge import build_hooks, hooks_table
    from app.paths import Paths
    from app.trust import FolderTrust

    paths = Paths.for_cwd(args.cwd)
    settings = settings_for_cli(paths)
    if settings is None:
        return EXIT_USAGE
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
