"""`agentctx-tui context list|detail|map|json`: the context report without the TUI.

From the last request of the latest session when one was sent (``run``), otherwise
assembled on the spot from the session so far (``estimate``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from app.context.report import RENDERERS, ContextReport, load_report

EXIT_OK, EXIT_USAGE = 0, 2


def context_command(argv: Sequence[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    parser = parser_class(prog="agentctx-tui context", description="What the model's window holds, by source.")
    parser.add_argument("mode", nargs="?", default="list", choices=sorted(RENDERERS), help="list (default), detail, map or json")
    parser.add_argument("-s", "--session", metavar="ID", help="a session id or unique prefix (default: the latest)")
    parser.add_argument("-C", "--cwd", type=Path, help="the project directory (default: the current one)")
    args = parser.parse_args(argv)

    from app.cli.settings import settings_for_cli
    from app.core.session.listing import SessionNotFound, find_session, latest_session
    from app.paths import Paths

    paths = Paths.for_cwd(args.cwd)
    settings = settings_for_cli(paths)
    if settings is None:
        return EXIT_USAGE
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
