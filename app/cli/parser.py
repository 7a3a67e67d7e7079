"""The ``agentctx-tui`` parser: the default command's options, then one subparser per subcommand module.

Building it imports the subcommand modules but nothing they run with: each keeps its top to the standard
library and ``app.cli`` and imports its collaborators inside ``run``, so ``--help`` and ``-p`` pay for no
subcommand's dependencies (``python -X importtime -m app --help``: 81 modules before the subparsers, 90 after).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from app.cli.exit_codes import EXIT_USAGE

# Modules of app.cli, in the order --help lists them; each exposes add_parser(subparsers).
SUBCOMMAND_MODULES = ("sessions", "context", "skills", "memory", "mcp", "hooks", "trust", "permissions")


class UsageParser(argparse.ArgumentParser):
    """Every usage error exits 2 and says how to see the options (subparsers inherit the class)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n(run '{self.prog} --help' for the options)\n")


def build_parser() -> argparse.ArgumentParser:
    from app.cli import default

    parser = UsageParser(
        prog="agentctx-tui",
        description="A terminal coding agent that shows what enters the model's context window. "
        "Without a subcommand it opens the TUI, or runs one turn headless with -p (or piped stdin).",
        epilog="Model endpoint: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL or settings.yaml. "
        "'agentctx-tui COMMAND --help' shows a subcommand's options.",
    )
    default.add_arguments(parser)
    parser.set_defaults(run=default.run)
    subparsers = parser.add_subparsers(title="subcommands", metavar="COMMAND", dest="command")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"app.cli.{name}").add_parser(subparsers)
    return parser
