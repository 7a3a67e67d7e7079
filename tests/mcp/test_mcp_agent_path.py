"""MCP tools take the agent's own path: hooks see their names, the record keeps their results,
deferred tools are loaded mid-turn, and what the agent guards stays guarded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from app.config import load_settings
from app.core.events import ToolCallFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.mcp.servers import stdio_entry


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


async def _runtime(server: FakeOpenAIServer, repo: Path, settings_data: dict, *, mode: str = "default", window: int | None = None):  # type: ignore[no-untyped-def]
    paths = Paths.for_cwd(repo)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text(yaml.safe_dump(settings_data), encoding="utf-8")
    flags = {"model.base_url": server.base_url, "model.name": "fake-model", "model.api_key": "k", "approval_mode": mode, "model.context_window": window}
    settings = load_settings(paths, flags, env={})
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    runtime = build_runtime(settings, paths, interactive=False)
    runtime.start_mcp()
    assert await runtime.mcp.wait_listed()
    return runtime


async def _run(runtime, prompt: str) -> list:  # type: ignore[no-untyped-def]
    return [event async for event in runtime.agent.run(prompt)]


def _results(events: list) -> dict[str, ToolCallFinished]:
    return {e.call.id: e for e in events if isinstance(e, ToolCallFinished)}


async def test_hooks_see_the_mcp_name_and_the_record_keeps_the_result(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    log = repo.parent / "hook.log"
    hook = repo.parent / "hook.py"
    hook.write_text(
        "import json, sys\ndata = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(data['hook_event_name'] + ' ' + data['tool_name'] + ' ' + json.dumps(data['tool_input']) + '\\n')\n"
        "print(json.dumps({'decision': 'deny', 'reason': 'no shouting'}) if data['tool_name'].endswith('__shout') else '{}')\n",
        encoding="utf-8",
    )
    command = [sys.executable, str(hook)]
    runtime = await _runtime(
        fake_llm,
        repo,
        {"mcpServers": {"fake": stdio_entry(trust=True)}, "hooks": {"PreToolUse": [{"matcher": "mcp__fake__.*", "command": command}], "PostToolUse": [{"matcher": "mcp__.*", "command": command}]}},
    )
    try:
        fake_llm.push(Reply.tool_calls([("c1", "mcp__fake__echo", {"text": "hi"}), ("c2", "mcp__fake__shout", {"text": "hi"})]), Reply.text("ok"))
        results = _results(await _run(runtime, "go"))
        assert results["c1"].status == "ok" and results["c1"].output == "echo: hi"
        assert results["c2"].status == "rejected" and "no shouting" in results["c2"].output
        lines = log.read_text(encoding="utf-8").splitlines()
        assert lines[0] == 'PreToolUse mcp__fake__echo {"text": "hi"}'
        assert 'PostToolUse mcp__fake__echo {"text": "hi"}' in lines and 'PreToolUse mcp__fake__shout {"text": "hi"}' in lines
        assert not any(line.startswith("PostToolUse mcp__fake__shout") for line in lines)
        records = [json.loads(line) for line in runtime.recorder.path.read_text(encoding="utf-8").splitlines()]
        assert any("echo: hi" in json.dumps(r) and r.get("type") != "system" for r in records)
    finally:
        await runtime.aclose()


async def test_a_deferred_tool_is_loaded_by_tool_search_and_called_in_the_same_turn(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    runtime = await _runtime(fake_llm, repo, {"mcpServers": {"big": stdio_entry("--tools", "200", trust=True)}}, window=131_072)
    try:
        fake_llm.push(
            Reply.tool_calls([("s1", "tool_search", {"query": "select:mcp__big__tool_042"})]),
            Reply.tool_calls([("c1", "mcp__big__tool_042", {"query": "owners"})]),
            Reply.text("found them"),
        )
        results = _results(await _run(runtime, "look in collection 42"))
        first, second, third = (r.body for r in fake_llm.requests[:3])
        names = lambda body: [t["function"]["name"] for t in body["tools"]]  # noqa: E731
        assert "tool_search" in names(first) and "mcp__big__tool_042" not in names(first)
        assert "mcp__big__tool_042" in names(second) and "mcp__big__tool_041" not in names(second)
        assert results["c1"].output == "tool 42: owners (limit 10)"
        assert "mcp__big__tool_042" in names(third)  # from then on, sent like any tool
        listing = next(t for t in first["tools"] if t["function"]["name"] == "tool_search")["function"]["description"]
        assert "mcp__big__tool_199" in listing
    finally:
        await runtime.aclose()


async def test_an_untrusted_servers_tool_does_not_run_when_the_user_says_no(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    target = repo / "pwned"
    runtime = await _runtime(fake_llm, repo, {"mcpServers": {"fake": stdio_entry()}})
    runtime.agent.interactive = True
    try:
        fake_llm.push(Reply.tool_calls([("c1", "mcp__fake__touch", {"path": str(target)})]), Reply.text("ok"))
        events = []
        async for event in runtime.agent.run("touch it"):
            events.append(event)
            if getattr(event, "future", None) is not None and event.kind == "approval_needed":
                assert "MCP server 'fake'" in event.detail and event.tool_kind == "external"
                from app.core.events import Decision

                event.future.set_result(Decision.REJECT)
        assert _results(events)["c1"].status == "rejected"
        assert not target.exists()  # the server's tool never ran
        assert "rejected" in fake_llm.requests[1].messages[-1]["content"]
    finally:
        await runtime.aclose()


async def test_plan_mode_refuses_mcp_tools(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    target = repo / "pwned"
    runtime = await _runtime(fake_llm, repo, {"mcpServers": {"fake": stdio_entry(trust=True)}}, mode="plan")
    try:
        fake_llm.push(Reply.tool_calls([("c1", "mcp__fake__touch", {"path": str(target)})]), Reply.text("ok"))
        results = _results(await _run(runtime, "touch it"))
        assert results["c1"].status == "error" and "Unknown tool 'mcp__fake__touch'" in results["c1"].output
        assert not target.exists()
        assert not [t for t in fake_llm.requests[0].body["tools"] if t["function"]["name"].startswith("mcp__")]  # not offered
        assert runtime.mcp.connections["fake"].status == "connected"  # /mcp, prompts and resources still work
    finally:
        await runtime.aclose()


async def test_the_agents_secrets_are_not_in_a_stdio_servers_environment(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-of-the-agent")
    monkeypatch.setenv("SERVER_TOKEN", "for-the-server")
    runtime = await _runtime(fake_llm, repo, {"mcpServers": {"fake": stdio_entry(trust=True, env={"GIVEN": "$SERVER_TOKEN"})}})
    try:
        fake_llm.push(
            Reply.tool_calls([("c1", "mcp__fake__getenv", {"name": "OPENAI_API_KEY"}), ("c2", "mcp__fake__getenv", {"name": "GIVEN"})]),
            Reply.text("ok"),
        )
        results = _results(await _run(runtime, "env"))
        assert results["c1"].output == "(unset)"  # only the SDK's safe variables (HOME, PATH, ...) are inherited
        assert results["c2"].output == "for-the-server"  # what the entry gives it, with $VAR expanded
    finally:
        await runtime.aclose()


async def test_a_speculative_turn_never_calls_an_mcp_tool(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    from app.core.speculation import Speculation

    target = repo.parent / "pwned"
    runtime = await _runtime(fake_llm, repo, {"mcpServers": {"fake": stdio_entry(trust=True)}})
    try:
        fake_llm.push(Reply.tool_calls([("c1", "mcp__fake__touch", {"path": str(target)})]), Reply.text("done"))
        speculation = Speculation.start(runtime.agent, "touch it")
        await speculation.wait()
        result = next(m for m in speculation.messages if m.role == "tool")
        assert "cannot call MCP tools" in result.content
        assert not target.exists()  # the server's side effect never happened
    finally:
        await runtime.aclose()
