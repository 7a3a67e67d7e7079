"""Deferral: a 200-tool server stays under its share of the window; tool_search loads what is asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext
from app.core.tools.invoke import run_tool
from app.core.tools.permissions import PermissionPolicy
from app.core.tools.registry import builtin_registry
from app.core.tokens import estimate_tokens
from app.mcp.deferral import DeferredTools
from app.mcp.manager import McpManager
from tests.mcp.servers import stdio_entry

WINDOW = 131_072


def _sent_tokens(registry) -> int:  # type: ignore[no-untyped-def]
    return sum(estimate_tokens(json.dumps(s, ensure_ascii=False, separators=(",", ":"))) for s in registry.schemas() if s["function"]["name"].startswith(("mcp__", "tool_search")))


@pytest.fixture
async def big():  # type: ignore[no-untyped-def]
    registry = builtin_registry()
    deferred = DeferredTools(registry, context_window=WINDOW, share=0.10, count=estimate_tokens)
    manager = McpManager({"big": stdio_entry("--tools", "200")}, trusted=True, registry=registry, policy=PermissionPolicy(), deferred=deferred)
    manager.start()
    await manager.wait_listed()
    assert manager.connections["big"].status == "connected", manager.connections["big"].error
    try:
        yield manager, registry, deferred
    finally:
        await manager.aclose()


async def test_a_200_tool_server_is_deferred_under_its_share(big) -> None:  # type: ignore[no-untyped-def]
    manager, registry, deferred = big
    full = deferred.full_tokens()
    assert full > 0.10 * WINDOW  # the full schemas would pass the share
    assert deferred.active
    names = [s["function"]["name"] for s in registry.schemas()]
    assert "tool_search" in names and not [n for n in names if n.startswith("mcp__")]
    sent = _sent_tokens(registry)
    assert sent <= 0.10 * WINDOW
    listing = registry.get("tool_search").description
    assert "mcp__big__tool_199: Generated tool number 199." in listing
    row = manager.rows(estimate_tokens)[0]
    assert row.schema_tokens == full and row.sent_tokens < full


async def test_tool_search_loads_the_asked_for_tools_and_they_are_sent_from_then_on(big, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    manager, registry, deferred = big
    search = registry.get("tool_search")
    result = await run_tool(search, {"query": "select:mcp__big__tool_007,mcp__big__echo"}, ToolContext(root=tmp_path))
    assert not result.is_error, result.output
    assert '"name": "mcp__big__tool_007"' in result.output and '"query"' in result.output
    names = [s["function"]["name"] for s in registry.schemas()]
    assert "mcp__big__tool_007" in names and "mcp__big__echo" in names
    assert "mcp__big__tool_007" not in registry.get("tool_search").description  # no longer listed twice
    # Keywords work too, best matches first, at most five.
    found = await run_tool(search, {"query": "shout upper-case"}, ToolContext(root=tmp_path))
    assert "mcp__big__shout" in found.output
    missing = await run_tool(search, {"query": "zzzz-nothing"}, ToolContext(root=tmp_path))
    assert missing.is_error and "No deferred tool matches" in missing.output


async def test_a_small_server_is_not_deferred(tmp_path: Path) -> None:
    registry = builtin_registry()
    deferred = DeferredTools(registry, context_window=WINDOW, share=0.10, count=estimate_tokens)
    manager = McpManager({"small": stdio_entry()}, trusted=True, registry=registry, deferred=deferred)
    try:
        manager.start()
        await manager.wait_listed()
        names = [s["function"]["name"] for s in registry.schemas()]
        assert "mcp__small__echo" in names and "tool_search" not in names
        assert not deferred.active
    finally:
        await manager.aclose()
