"""`agentctx-tui mcp list [--json]`: every configured MCP server, connected now, with its tools and their tokens."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.exit_codes import EXIT_FAILED, EXIT_OK


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("mcp", help="the MCP servers: status, transport, tools and tokens", description="MCP servers: status, transport, tools and tokens per server.")
    parser.set_defaults(run=run)
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="connect to every configured server and show what it offers")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("-C", "--cwd", type=Path)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from app.cli.settings import project_settings

    _, settings = project_settings(args.cwd)
    return asyncio.run(_list(settings, as_json=args.json))


async def _list(settings, *, as_json: bool) -> int:  # type: ignore[no-untyped-def]
    from app.core.llm.models import context_window_for
    from app.core.tokens import TokenCounter
    from app.core.tools.registry import builtin_registry
    from app.mcp.deferral import DeferredTools
    from app.mcp.listing import servers_text
    from app.mcp.manager import McpManager

    counter = TokenCounter(settings.model.name)
    counter.load()  # asked for on purpose: exact counts for Qwen models
    window = context_window_for(settings.model.name, settings.model.context_window)
    registry = builtin_registry()
    deferred = DeferredTools(registry, context_window=window, share=settings.mcp.deferred_share, count=counter.count)
    # The project layer is in settings only for a trusted folder, so every entry here may start.
    manager = McpManager(settings.mcp_servers, trusted=True, registry=registry, connect_timeout=settings.mcp.connect_timeout, deferred=deferred)
    manager.start()
    try:
        await manager.wait_listed()
        rows = manager.rows(counter.count)
    finally:
        await manager.aclose()
    if as_json:
        print(
            json.dumps(
                {
                    "servers": [row.to_json() for row in rows],
                    "problems": manager.problems,
                    "deferred": deferred.active,
                    "deferred_budget_tokens": deferred.budget,
                    "token_method": counter.method,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        print(servers_text(rows, problems=manager.problems, deferred=deferred.active, budget=deferred.budget))
    return EXIT_FAILED if any(row.status != "connected" for row in rows) else EXIT_OK
