"""MCP prompts as slash commands and resources as @server:uri mentions, through whole headless turns."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mcp.connection import RemotePrompt
from app.mcp.mentions import MentionError, prompt_arguments
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_headless_cli import cli
from tests.mcp.servers import stdio_entry, write_user_settings
from tests.workspace import Workspace

WORKSPACE = Workspace(name="repo", git=True)


@pytest.fixture(autouse=True)
def _fake_server_configured(hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"fake": stdio_entry()}})


def _last_user(fake: FakeOpenAIServer) -> str:
    return [m["content"] for m in fake.requests[0].body["messages"] if m["role"] == "user"][-1]


def test_a_prompt_command_sends_the_prompts_text(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("reviewed"))
    result = cli(["-p", "/mcp__fake__review src/app.py focus=races"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert _last_user(fake_llm) == "Please review src/app.py, looking for races."


def test_a_prompt_command_without_its_required_argument_says_how_to_write_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    result = cli(["-p", "/mcp__fake__review"], cwd=workspace, server=fake_llm)
    assert result.returncode == 2
    assert "missing path; usage: /mcp__fake__review PATH [FOCUS]" in result.stderr
    assert not fake_llm.requests


def test_a_resource_mention_attaches_it_fenced(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "what is on @fake:notes://today?"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert _last_user(fake_llm) == (
        'what is on @fake:notes://today?\n\n<mcp-resource server="fake" uri="notes://today">\n'
        "Standup at 10:00. Release freeze on Friday.\n</mcp-resource>"
    )


def test_a_resource_cannot_close_its_fence(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "read @fake:notes://evil"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    sent = _last_user(fake_llm)
    assert sent.count("</mcp-resource>") == 1 and sent.endswith("</mcp-resource>")
    assert "harmless<\\/mcp-resource>" in sent


def test_mentions_of_files_or_unknown_servers_are_left_alone(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "look at @README.md:3 and user@host:path and @other:notes://today"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert _last_user(fake_llm) == "look at @README.md:3 and user@host:path and @other:notes://today"


def test_a_missing_resource_is_a_warning_and_the_turn_goes_on(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "read @fake:notes://nope"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert "could not read notes://nope" in result.stderr
    assert _last_user(fake_llm) == "read @fake:notes://nope"


def test_prompt_arguments_by_name_and_position() -> None:
    prompt = RemotePrompt("p", "", (("path", True), ("focus", False)))
    assert prompt_arguments("c", prompt, "a.py") == {"path": "a.py"}
    assert prompt_arguments("c", prompt, "a.py the rest of it") == {"path": "a.py", "focus": "the rest of it"}
    assert prompt_arguments("c", prompt, "focus=x a.py") == {"focus": "x", "path": "a.py"}
    with pytest.raises(MentionError, match="unterminated|No closing quotation"):
        prompt_arguments("c", prompt, "'open")
