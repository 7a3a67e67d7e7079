"""How many tokens deferring MCP tool schemas saves: a 200-tool SDK server, every request.

    PYTHONPATH=. .venv/bin/python bench/mcp_deferral.py

Starts tests/fakes/mcp_server.py --tools 200 (209 tools with its nine fixed ones) over stdio,
and prints the MCP part of the tools block with every schema sent, and with them deferred
behind tool_search (names and one-line descriptions), counted with Qwen's exact vocabulary.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core.tokens import TokenCounter  # noqa: E402
from app.core.tools.registry import builtin_registry  # noqa: E402
from app.mcp.deferral import DeferredTools  # noqa: E402
from app.mcp.manager import McpManager  # noqa: E402

FAKE = str(Path(__file__).resolve().parents[1] / "tests" / "fakes" / "mcp_server.py")
WINDOW = 131_072


def sent(registry, counter: TokenCounter) -> int:  # type: ignore[no-untyped-def]
    return sum(
        counter.count(json.dumps(s, ensure_ascii=False, separators=(",", ":")))
        for s in registry.schemas()
        if s["function"]["name"].startswith(("mcp__", "tool_search"))
    )


async def main() -> None:
    counter = TokenCounter("qwen3-coder-plus")
    counter.load()
    registry = builtin_registry()
    deferred = DeferredTools(registry, context_window=WINDOW, share=0.10, count=counter.count)
    manager = McpManager({"big": {"command": sys.executable, "args": [FAKE, "--tools", "200"]}}, trusted=True, registry=registry, deferred=deferred)
    manager.start()
    await manager.wait_listed()
    try:
        tools = len(deferred.mcp_tools())
        full = deferred.full_tokens()
        kept = sent(registry, counter)
        print(f"tokens counted: {counter.method}; window {WINDOW:,}; share 10 % = {deferred.budget:,} tok")
        print(f"{tools} MCP tools, every schema sent:      {full:>7,} tok ({100 * full / WINDOW:.1f} % of the window)")
        print(f"deferred (tool_search + listing):       {kept:>7,} tok ({100 * kept / WINDOW:.1f} % of the window)")
        print(f"saved per request:                      {full - kept:>7,} tok ({100 * (full - kept) / full:.0f} %)")
    finally:
        await manager.aclose()


if __name__ == "__main__":
    asyncio.run(main())
