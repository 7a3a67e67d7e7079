"""The connection manager against real SDK servers: good, failing, hanging, crashing, slow, large."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from app.core.tools.base import ToolContext
from app.core.tools.invoke import run_tool
from app.core.tools.permissions import PermissionDecision, PermissionPolicy
from app.core.tools.registry import ToolRegistry, builtin_registry
from app.core.tokens import estimate_tokens
from app.mcp.deferral import DeferredTools
from app.mcp.manager import McpManager
from tests.mcp.servers import http_server, stdio_entry


def _manager(servers: dict, *, trusted: bool = True, timeout: float = 60.0, window: int = 131_072, share: float = 0.10) -> McpManager:
    registry = builtin_registry()
    deferred = DeferredTools(registry, context_window=window, share=share, count=estimate_tokens)
    return McpManager(servers, trusted=trusted, registry=registry, policy=PermissionPolicy(), connect_timeout=timeout, deferred=deferred)


async def _call(manager: McpManager, name: str, args: dict, tmp_path: Path):  # type: ignore[no-untyped-def]
    tool = manager.registry.get(name)
    assert tool is not None, manager.registry.names()
    return await run_tool(tool, args, ToolContext(root=tmp_path))


async def test_a_failing_server_is_marked_with_its_stderr_and_the_others_keep_working(tmp_path: Path) -> None:
    manager = _manager({"good": stdio_entry(), "broken": stdio_entry("--crash-on-start")})
    try:
        manager.start()
        assert await manager.wait_listed()
        broken = manager.connections["broken"]
        assert broken.status == "failed"
        assert "cannot open the database (on purpose)" in broken.stderr_tail()
        result = await _call(manager, "mcp__good__echo", {"text": "still here"}, tmp_path)
        assert (result.output, result.is_error) == ("echo: still here", False)
        rows = {row.name: row for row in manager.rows(estimate_tokens)}
        assert rows["broken"].status == "failed" and "on purpose" in rows["broken"].stderr_tail
        assert rows["good"].status == "connected" and rows["good"].schema_tokens > 0
    finally:
        await manager.aclose()


async def test_a_server_that_hangs_at_start_is_given_up_after_the_timeout(tmp_path: Path) -> None:
    manager = _manager({"stuck": stdio_entry("--hang-on-start")}, timeout=2.0)
    try:
        manager.start()
        assert await manager.wait_listed()
        stuck = manager.connections["stuck"]
        assert stuck.status == "failed"
        assert "no answer within 2 s" in stuck.error
    finally:
        await manager.aclose()


async def test_a_server_that_dies_mid_call_fails_that_call_and_says_so(tmp_path: Path) -> None:
    manager = _manager({"fake": stdio_entry()})
    try:
        manager.start()
        await manager.wait_listed()
        result = await _call(manager, "mcp__fake__crash", {}, tmp_path)
        assert result.is_error
        assert "MCP server 'fake' failed" in result.output and "/mcp reconnect fake" in result.output
        assert "crashing on purpose" in result.output  # its stderr tail
        again = await _call(manager, "mcp__fake__echo", {"text": "x"}, tmp_path)
        assert again.is_error and "failed" in again.output
        # Reconnecting on demand brings it back.
        await manager.reconnect("fake")
        await manager.wait_listed()
        back = await _call(manager, "mcp__fake__echo", {"text": "back"}, tmp_path)
        assert (back.output, back.is_error) == ("echo: back", False)
    finally:
        await manager.aclose()


async def test_a_server_that_dies_while_idle_is_marked_failed_with_its_stderr(tmp_path: Path) -> None:
    registry = builtin_registry()
    manager = McpManager({"flaky": stdio_entry("--exit-after", "1"), "steady": stdio_entry()}, trusted=True, registry=registry, health_interval=0.2)
    changes: list[str] = []
    manager.listeners.append(lambda connection: changes.append(connection.status))
    try:
        manager.start()
        await manager.wait_listed()
        connection = manager.connections["flaky"]
        assert connection.status == "connected", connection.error
        for _ in range(600):  # no call is made: only the idle ping can notice
            if connection.status == "failed":
                break
            await asyncio.sleep(0.05)
        assert connection.status == "failed" and "stopped answering while idle" in connection.error
        assert "out of memory (on purpose)" in connection.stderr_tail()
        assert "failed" in changes  # the TUI is told
        await asyncio.sleep(1.0)  # several checks of the healthy one meanwhile
        assert manager.connections["steady"].status == "connected", manager.connections["steady"].error
    finally:
        await manager.aclose()


async def test_a_slow_tool_times_out_by_the_server_timeout_and_the_server_stays_usable(tmp_path: Path) -> None:
    manager = _manager({"slow": stdio_entry("--slow", "30", timeout=1500)})
    try:
        manager.start()
        await manager.wait_listed()
        assert manager.connections["slow"].status == "connected", manager.connections["slow"].error
        result = await _call(manager, "mcp__slow__slow_echo", {"text": "x"}, tmp_path)
        assert result.is_error and "timed out" in result.output and "1.5 s" in result.output
        ok = await _call(manager, "mcp__slow__echo", {"text": "fast"}, tmp_path)
        assert ok.output == "echo: fast"
    finally:
        await manager.aclose()


async def test_a_tool_error_is_an_error_result_for_the_model(tmp_path: Path) -> None:
    manager = _manager({"fake": stdio_entry()})
    try:
        manager.start()
        await manager.wait_listed()
        result = await _call(manager, "mcp__fake__fail", {"reason": "bad input"}, tmp_path)
        assert result.is_error
    finally:
        await manager.aclose()


async def test_output_is_capped_like_any_tool(tmp_path: Path) -> None:
    manager = _manager({"fake": stdio_entry()})
    try:
        manager.start()
        await manager.wait_listed()
        tool = manager.registry.get("mcp__fake__big")
        assert tool is not None
        result = await run_tool(tool, {"chars": 50_000}, ToolContext(root=tmp_path, output_limit=1_000))
        assert len(result.output) < 1_200 and "chars omitted" in result.output
    finally:
        await manager.aclose()


async def test_include_and_exclude_tools_filter_what_is_registered(tmp_path: Path) -> None:
    manager = _manager(
        {
            "only": stdio_entry(includeTools=["echo", "add"]),
            "but": stdio_entry(excludeTools=["crash", "fail"]),
        }
    )
    try:
        manager.start()
        await manager.wait_listed()
        names = manager.registry.names()
        assert [n for n in names if n.startswith("mcp__only__")] == ["mcp__only__echo", "mcp__only__add"]
        but = {n for n in names if n.startswith("mcp__but__")}
        assert "mcp__but__crash" not in but and "mcp__but__fail" not in but and "mcp__but__echo" in but
    finally:
        await manager.aclose()


async def test_project_servers_start_only_in_a_trusted_folder(tmp_path: Path) -> None:
    servers = {
        "mine": {**stdio_entry(), "_layer": "user"},
        "theirs": {**stdio_entry("--pid-file", str(tmp_path / "theirs.pid")), "_layer": "project"},
    }
    untrusted = _manager(servers, trusted=False)
    try:
        untrusted.start()
        await untrusted.wait_listed()
        assert list(untrusted.connections) == ["mine"]
        assert not (tmp_path / "theirs.pid").exists()  # its command never ran
        assert any("'theirs'" in p and "not trusted" in p for p in untrusted.problems)
        assert not [n for n in untrusted.registry.names() if n.startswith("mcp__theirs__")]
    finally:
        await untrusted.aclose()
    trusted = _manager(servers, trusted=True)
    try:
        trusted.start()
        await trusted.wait_listed()
        assert trusted.connections["theirs"].status == "connected"
        assert (tmp_path / "theirs.pid").exists()
    finally:
        await trusted.aclose()


async def test_trust_allows_a_servers_tools_but_deny_rules_still_win(tmp_path: Path) -> None:
    registry = builtin_registry()
    policy = PermissionPolicy(deny=["mcp__t__shout"])
    manager = McpManager({"t": stdio_entry(trust=True), "u": stdio_entry()}, trusted=True, registry=registry, policy=policy)
    try:
        manager.start()
        await manager.wait_listed()
        decide = lambda name: policy.decide(registry.get(name), {})[0]  # noqa: E731
        assert decide("mcp__t__echo") is PermissionDecision.ALLOW
        assert decide("mcp__t__shout") is PermissionDecision.DENY
        assert decide("mcp__u__echo") is PermissionDecision.ASK
    finally:
        await manager.aclose()


async def test_an_http_server_lists_and_calls(tmp_path: Path) -> None:
    with http_server() as url:
        manager = _manager({"web": {"httpUrl": url, "headers": {"X-Test": "1"}}})
        try:
            manager.start()
            assert await manager.wait_listed()
            assert manager.connections["web"].status == "connected", manager.connections["web"].error
            result = await _call(manager, "mcp__web__shout", {"text": "quiet"}, tmp_path)
            assert result.output == "QUIET"
        finally:
            await manager.aclose()


async def test_headers_reach_an_http_server_with_variables_expanded(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DOCS_TOKEN", "s3cret")
    with http_server("--require-token", "s3cret") as url:
        without = _manager({"docs": {"httpUrl": url}}, timeout=20)
        with_token = _manager({"docs": {"httpUrl": url, "headers": {"Authorization": "Bearer $DOCS_TOKEN"}}}, timeout=20)
        try:
            without.start()
            with_token.start()
            await without.wait_listed()
            await with_token.wait_listed()
            assert without.connections["docs"].status == "failed" and "401" in without.connections["docs"].error
            assert with_token.connections["docs"].status == "connected", with_token.connections["docs"].error
        finally:
            await without.aclose()
            await with_token.aclose()


async def test_an_sse_server_lists_and_calls(tmp_path: Path) -> None:
    with http_server(sse=True) as url:
        manager = _manager({"old": {"url": url}})
        try:
            manager.start()
            assert await manager.wait_listed()
            assert manager.connections["old"].config.transport == "sse"
            assert manager.connections["old"].status == "connected", manager.connections["old"].error
            result = await _call(manager, "mcp__old__add", {"a": 1, "b": 2}, tmp_path)
            assert result.output == "3"
        finally:
            await manager.aclose()


async def test_an_http_server_that_is_not_there_fails_clearly(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    manager = _manager({"gone": {"httpUrl": f"http://127.0.0.1:{port}/mcp"}}, timeout=10)
    try:
        manager.start()
        await manager.wait_listed()
        assert manager.connections["gone"].status == "failed"
        assert manager.connections["gone"].error
    finally:
        await manager.aclose()


async def test_a_command_that_does_not_exist_fails_clearly(tmp_path: Path) -> None:
    manager = _manager({"nope": {"command": str(tmp_path / "no-such-server")}}, timeout=10)
    try:
        manager.start()
        await manager.wait_listed()
        connection = manager.connections["nope"]
        assert connection.status == "failed"
        assert "no-such-server" in connection.error + connection.stderr_tail()
    finally:
        await manager.aclose()


def test_no_server_configured_registers_nothing() -> None:
    registry = ToolRegistry()
    manager = McpManager({}, trusted=True, registry=registry)
    assert not manager and len(registry) == 0


def test_sys_executable_is_what_the_fake_runs_with() -> None:
    assert stdio_entry()["command"] == sys.executable
