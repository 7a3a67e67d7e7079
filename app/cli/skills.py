"""`agentctx-tui skills list [--json]`: the same listing as the skills panel."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.exit_codes import EXIT_OK


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("skills", help="the skills by level, with their status", description="Skills by level, with their status.")
    parser.set_defaults(run=run)
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="every skill and why it is or is not offered")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("-C", "--cwd", type=Path)


def run(args: argparse.Namespace) -> int:
    from app.cli.settings import project_settings
    from app.context.skills import SkillManager
    from app.context.skills.listing_text import skills_text
    from app.context.skills.switches import project_disabled
    from app.runtime import _home

    paths, settings = project_settings(args.cwd)
    manager = SkillManager(paths.project_root, paths.config_dir, _home(), disabled=[*settings.skills.disabled, *project_disabled(paths)])
    if args.json:
        rows = [
            {
                "name": entry.name,
                "level": entry.level.value if entry.level else None,
                "status": entry.status.value,
                "path": str(entry.path),
                "description": entry.skill.description if entry.skill else None,
                "paths": list(entry.skill.paths) if entry.skill else [],
                "message": entry.message or None,
            }
            for entry in manager.skills
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(skills_text(manager))
    return EXIT_OK
