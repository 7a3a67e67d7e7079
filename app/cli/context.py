"""`agentctx-tui context list|detail|map|json`: the context report without the TUI (and `context parts|drop|…`,
the view's hand edits, in app/cli/context_edit.py).

From the last request of the latest session when one was sent (``run``), otherwise
assembled on the spot from the session so far (``estimate``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.exit_codes import EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from app.context.report import ContextReport

# The renderers' names (app.context.report.RENDERERS, which a test keeps in step): importing the report
# module here would put the context package on the path of every other command.
MODES = ("detail", "json", "list", "map")
# The view's hand edits (app/cli/context_edit.py): ``context drop ID…`` beside ``context detail``.
EDIT_COMMANDS = ("parts", "drop", "pin", "unpin", "restore")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("context", help="what the model's window holds, by source (list, detail, map, json)", description="What the model's window holds, by source.")
    parser.set_defaults(run=run)
    parser.add_argument(
        "mode", nargs="?", default="list", choices=(*MODES, *EDIT_COMMANDS),
        help="list (default), detail, map or json; parts lists the view's part ids; drop, pin, unpin, restore edit them",
    )
    parser.add_argument("ids", nargs="*", metavar="ID", help="part ids as 'parts' prints them, or FIRST..LAST for a range")
    parser.add_argument("-s", "--session", metavar="ID", help="a session id or unique prefix (default: the latest)")
    parser.add_argument("-C", "--cwd", type=Path, help="the project directory (default: the current one)")


def run(args: argparse.Namespace) -> int:
    if args.mode in EDIT_COMMANDS:
        from app.cli import context_edit

        return context_edit.run(args)
    if args.ids:
        print(f"agentctx-tui: context {args.mode} takes no part ids (they are for parts, drop, pin, unpin, restore)", file=sys.stderr)
        return EXIT_USAGE
    from app.cli.settings import project_settings
    from app.context.report import RENDERERS, load_report
    from app.core.session.listing import SessionNotFound, find_session, latest_session

    paths, settings = project_settings(args.cwd)
    try:
        summary = find_session(paths.chats_dir, args.session) if args.session else latest_session(paths.chats_dir)
    except SessionNotFound as exc:
        print(f"agentctx-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = load_report(paths.chats_dir, summary.session_id) if summary else None
    if report is None:
        report = _estimate(settings, paths, summary.session_id if summary else None)
    print(RENDERERS[args.mode](report))
    return EXIT_OK


def _estimate(settings, paths, session_id: str | None) -> ContextReport:  # type: ignore[no-untyped-def]
    import asyncio

    from app.runtime import build_runtime

    runtime = build_runtime(settings, paths, resume=session_id)
    if session_id is None:
        runtime.assembler.session_id = ""  # nothing recorded yet: do not name a session that does not exist
    # A report is asked for on purpose: wait for the exact vocabulary (Qwen models) the TUI loads in the background.
    if runtime.assembler.counter.load():
        runtime.assembler.recount()
    schemas = asyncio.run(_schemas_with_mcp(runtime)) if runtime.mcp is not None else runtime.tools.schemas()
    request = runtime.assembler.assemble(list(runtime.resumed_messages), schemas)
    return runtime.assembler.report(request, source="estimate")


async def _schemas_with_mcp(runtime) -> list[dict]:  # type: ignore[no-untyped-def]
    """The tools block with the MCP servers' tools: connect (bounded), list, disconnect."""
    runtime.start_mcp()
    try:
        await runtime.mcp.wait_listed()
        return runtime.tools.schemas()
    finally:
        await runtime.mcp.aclose()
