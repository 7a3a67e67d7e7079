"""The agent tool through whole turns against the loopback server: the subagent's window is its own.

Request order on the fake server: the parent asks for a delegation, the subagent reads a file and
reports, the parent answers. What each request carried is the evidence.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.config import Settings
from app.context.subagents import BUILT_INS, READ_ONLY_TOOLS, load_agents
from app.core.events import ToolCallFinished, TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from app.trust import FolderTrust
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SECRET_LINE = "the forty files of detail the parent should never pay for"


def _settings(server: FakeOpenAIServer, mode: str = "default") -> Settings:
    settings = Settings()
    settings.approval_mode = mode
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    settings.model.max_retries = 0
    settings.memory.enabled = False
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    settings.sessions.auto_title = False
    return settings


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "notes.txt").write_text(f"{SECRET_LINE}\n")
    return root


async def _turn(server: FakeOpenAIServer, repo: Path, agent: str = "Explore", mode: str = "default") -> list:
    server.push(
        Reply.tool_calls([("p1", "agent", {"description": "find the notes", "prompt": "What does notes.txt say?", "subagent_type": agent})]),
        Reply.tool_calls([("s1", "read_file", {"path": "notes.txt"})]),
        Reply.text("notes.txt:1 describes detail; nothing else matters."),
        Reply.text("Done: the notes describe detail."),
    )
    runtime = build_runtime(_settings(server, mode), Paths.for_cwd(repo))
    assert runtime.agent is not None
    events = [event async for event in runtime.agent.run("summarise the notes")]
    await runtime.aclose()
    return events


def _tool_names(body: dict) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools", [])}


async def test_the_subagent_has_its_own_prompt_and_none_of_the_parents_messages(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    events = await _turn(fake_llm, repo)
    parent, sub_first, sub_last, parent_next = (r.body for r in fake_llm.requests[:4])
    explore = next(spec for spec in BUILT_INS if spec.name == "Explore")
    assert sub_first["messages"][0] == {"role": "system", "content": explore.system_prompt}
    assert [m["role"] for m in sub_first["messages"]] == ["system", "user"]
    assert sub_first["messages"][1]["content"] == "What does notes.txt say?"
    assert "summarise the notes" not in json.dumps(sub_first), "none of the parent's conversation"
    assert SECRET_LINE in json.dumps(sub_last), "the subagent read the file in its own window"
    assert "agent" in _tool_names(parent)
    report = next(m for m in parent_next["messages"] if m["role"] == "tool")
    assert "notes.txt:1 describes detail" in report["content"]
    assert SECRET_LINE not in json.dumps(parent_next), "the parent pays for the report, not the reading"
    finished = next(e for e in events if isinstance(e, ToolCallFinished) and e.call.id == "p1")
    assert finished.status == "ok" and "requests" in finished.summary and isinstance(events[-1], TurnFinished)


async def test_explore_declares_no_write_or_shell_tool(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    await _turn(fake_llm, repo)
    assert _tool_names(fake_llm.requests[1].body) == set(READ_ONLY_TOOLS)


async def test_general_purpose_gets_the_parents_tools_but_not_delegation(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    await _turn(fake_llm, repo, agent="general-purpose")
    names = _tool_names(fake_llm.requests[1].body)
    assert {"write_file", "edit", "run_shell_command", "read_file"} <= names and "agent" not in names and "skill" not in names


async def test_in_plan_mode_a_subagent_is_read_only_too(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    await _turn(fake_llm, repo, agent="general-purpose", mode="plan")
    assert _tool_names(fake_llm.requests[1].body) == set(READ_ONLY_TOOLS), "never wider than the parent"


async def test_an_unknown_agent_is_named_with_the_ones_there_are(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    fake_llm.push(
        Reply.tool_calls([("p1", "agent", {"description": "x", "prompt": "y", "subagent_type": "nope"})]),
        Reply.text("sorry"),
    )
    runtime = build_runtime(_settings(fake_llm), Paths.for_cwd(repo))
    assert runtime.agent is not None
    events = [event async for event in runtime.agent.run("go")]
    await runtime.aclose()
    output = next(e for e in events if isinstance(e, ToolCallFinished)).output
    assert "no agent named 'nope'" in output and "Explore" in output and "general-purpose" in output


AGENT_FILE = """---
name: reviewer
description: Reviews a diff for bugs.
tools: [read_file, grep_search]
---
You review code and report bugs with file:line.
"""


def test_project_agents_load_only_in_a_trusted_folder(repo: Path, tmp_path: Path) -> None:
    (repo / ".qwen" / "agents").mkdir(parents=True)
    (repo / ".qwen" / "agents" / "reviewer.md").write_text(AGENT_FILE)
    config = tmp_path / "config"
    untrusted, _ = load_agents(config, repo, trusted=False)
    trusted, warnings = load_agents(config, repo, trusted=True)
    assert "reviewer" not in {a.name for a in untrusted}, "a repository's agent file is part of its project layer"
    reviewer = next(a for a in trusted if a.name == "reviewer")
    assert reviewer.tools == ("read_file", "grep_search") and reviewer.system_prompt.startswith("You review code")
    assert not warnings


def test_a_bad_agent_file_is_named_and_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "agents"
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("---\ndescription: no name\n---\nbody\n")
    agents, warnings = load_agents(tmp_path / "config", tmp_path, trusted=False)
    assert [a.name for a in agents] == ["general-purpose", "Explore"]
    assert len(warnings) == 1 and "broken.md" in warnings[0] and "'name'" in warnings[0]


async def test_a_trusted_project_agent_runs_with_its_own_prompt_and_tools(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    (repo / ".qwen" / "agents").mkdir(parents=True)
    (repo / ".qwen" / "agents" / "reviewer.md").write_text(AGENT_FILE)
    FolderTrust(Paths.for_cwd(repo).config_dir).remember(repo, True)
    await _turn(fake_llm, repo, agent="reviewer")
    sub_first = fake_llm.requests[1].body
    assert sub_first["messages"][0]["content"].startswith("You review code")
    assert _tool_names(sub_first) == {"read_file", "grep_search"}
