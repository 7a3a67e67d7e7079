"""The ``agentctx-tui`` parser: the default command's options, then one subparser per subcommand module.

Building it imports the subcommand modules but nothing they run with: each keeps its top to the standard
library and ``app.cli`` and imports its collaborators inside ``run``, so ``--help`` pays for no
subcommand's dependencies (``python -X importtime -m app --help``: 81 modules before the subparsers, 90 after).

A command line is parsed with only the subparsers it needs: none for the default command (the TUI, or
``-p``), the named one's for a subcommand, every one for ``--help`` at the top or a word that is no
subcommand (so the error lists them). Building all of them is about 100 M instructions, a tenth of a
headless turn (``valgrind --tool=callgrind python -c "from app.cli.parser import build_parser; build_parser()"``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from app.cli.exit_codes import EXIT_USAGE

# Modules of app.cli, in the order --help lists them; each exposes add_parser(subparsers).
SUBCOMMAND_MODULES = ("sessions", "context", "skills", "memory", "mcp", "hooks", "trust", "permissions")
# Each subcommand's name -> the module that declares it (trust.py declares two).
SUBCOMMANDS = {name: name for name in SUBCOMMAND_MODULES} | {"untrust": "trust"}


class UsageParser(argparse.ArgumentParser):
    """Every usage error exits 2 and says how to see the options (subparsers inherit the class)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n(run '{self.prog} --help' for the options)\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (only the subparsers it needs), or with every subcommand when ``argv`` is None."""
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
    for name in SUBCOMMAND_MODULES if argv is None else _modules_for(parser, argv):
        importlib.import_module(f"app.cli.{name}").add_parser(subparsers)
    return parser


def _modules_for(parser: argparse.ArgumentParser, argv: Sequence[str]) -> tuple[str, ...]:
    """The subcommand modules parsing ``argv`` needs: the first word that is not an option or an
    option's value names the subcommand; none means the default command."""
    takes_value = {option for action in parser._actions if action.nargs != 0 for option in action.option_strings}
    index = 0
    while index < len(argv):
        word = argv[index]
        if word in ("-h", "--help", "--"):
            return SUBCOMMAND_MODULES
        if word.startswith("-") and word != "-":
            index += 2 if word in takes_value else 1  # "--opt=value" and "-pVALUE" are one word
            continue
        module = SUBCOMMANDS.get(word)
        return (module,) if module is not None else SUBCOMMAND_MODULES
    return ()
