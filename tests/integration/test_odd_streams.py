"""Streams as servers really send them, through whole headless turns against the local fake server.

Each shape is a mode of tests/fakes/openai_server.py: calls sent whole with an id and no index, an
answer cut by the output limit inside tool arguments, a 3xx redirect, a Retry-After beyond the budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace(name="repo", git=False, files={"a.txt": "alpha\n", "b.txt": "beta\n"})


def cli(args: list[str], *, cwd: Path, server: FakeOpenAIServer, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    full.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-secret-test-key", OPENAI_MODEL="fake-model")
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, env=full, input="", capture_output=True, text=True, timeout=60)


def _tool_messages(server: FakeOpenAIServer) -> list[dict]:
    return [m for m in server.requests[-1].messages if m.get("role") == "tool"]


def test_calls_sent_whole_without_an_index_stay_separate_calls(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.whole_calls([("id-a", "read_file", {"path": "a.txt"}), ("id-b", "read_file", {"path": "b.txt"})]))
    fake_llm.push(Reply.text("read both"))
    result = cli(["-p", "read a and b"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    sent = fake_llm.requests[-1].messages
    calls = next(m for m in sent if m.get("tool_calls"))["tool_calls"]
    assert [(c["id"], json.loads(c["function"]["arguments"])) for c in calls] == [("id-a", {"path": "a.txt"}), ("id-b", {"path": "b.txt"})]
    results = {m["tool_call_id"]: m["content"] for m in _tool_messages(fake_llm)}
    assert "alpha" in results["id-a"] and "beta" in results["id-b"]


def test_the_output_limit_inside_tool_arguments_is_told_to_person_and_model(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.cut_by_length("write_file", '{"path": "big.txt", "content": "line one\\nline tw'))
    fake_llm.push(Reply.text("I will write it in parts."))
    result = cli(["-p", "write a big file", "--approval-mode", "yolo"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    limit = fake_llm.requests[0].body["max_tokens"]
    assert f"output-token limit ({limit:,} tokens)" in result.stderr and "model.max_output_tokens" in result.stderr
    (tool,) = _tool_messages(fake_llm)
    assert "output-token limit" in tool["content"] and "not run" in tool["content"]
    assert "valid JSON" not in tool["content"]
    assert not (workspace / "big.txt").exists()


def test_a_redirect_is_named_with_its_target_and_not_followed(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    with FakeOpenAIServer() as elsewhere:
        elsewhere.push(Reply.text("should never be asked"))
        fake_llm.push(Reply.redirect(f"{elsewhere.base_url}/chat/completions"))
        result = cli(["-p", "hi"], cwd=workspace, server=fake_llm)
        assert result.returncode == 1
        assert f"redirect (HTTP 307) to {elsewhere.base_url}/chat/completions" in result.stderr
        assert "another host" in result.stderr and "no data" not in result.stderr
        assert elsewhere.all_requests == []  # the key never went to the other address
    assert len(fake_llm.requests) == 1


def test_a_retry_after_beyond_the_budget_is_named(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.rate_limited(3600))
    result = cli(["-p", "hi"], cwd=workspace, server=fake_llm)
    assert result.returncode == 1
    assert "the server asked to wait 3,600 s" in result.stderr
    assert "model.max_retry_seconds" in result.stderr and "gave up after 1 attempt" in result.stderr
    assert len(fake_llm.requests) == 1
