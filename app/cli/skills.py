"""`agentctx-tui skills list [--json]`: the same listing as the skills panel."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2


def skills_command(argv: Sequence[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    parser = parser_class(prog="agentctx-tui skills", description="Skills by level, with their status.")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="every skill and why it is or is not offered")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("-C", "--cwd", type=Path)
    args = parser.parse_args(argv)

    from app.cli.settings import settings_for_cli
    from app.context.skills import SkillManager
    from app.context.skills.listing_text import skills_text
    from app.context.skills.switches import project_disabled
    from app.paths import Paths
    from app.runtime import _home

    paths = Paths.for_cwd(args.cwd)
    settings = settings_for_cli(paths)
    if settings is None:
        return EXIT_USAGE
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
