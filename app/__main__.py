"""``python -m app`` and the ``agentctx-tui`` script: the TUI by default, ``-p`` for one headless turn, subcommands.

The parser is built in ``app/cli/parser.py``; every command imports what it runs with only when it runs.
"""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Every subcommand and headless turn writes through inert streams: nothing a model or a file says drives the terminal."""
    from app import heap
    from app.inert import inert_output

    heap.loading()
    try:
        with inert_output():
            return _main(argv)
    finally:
        heap.loaded()


def _main(argv: Sequence[str] | None = None) -> int:
    from app.cli.exit_codes import CommandExit
    from app.cli.parser import build_parser

    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(words).parse_args(words)
    try:
        return args.run(args)
    except CommandExit as stop:
        return stop.code


if __name__ == "__main__":
    sys.exit(main())
