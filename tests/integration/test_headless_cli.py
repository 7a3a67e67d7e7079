"""The command line, as a user runs it: a real subprocess against the scripted local server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.trust_support import trust_folder
from tests.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]


WORKSPACE = Workspace(name="repo", git=True, files={"README.md": "# Project\n"})


def cli(args: list[str], *, cwd: Path, server: FakeOpenAIServer | None = None, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    full_env["PYTHONPATH"] = str(ROOT)
    if server is not None:
        full_env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test", OPENAI_MODEL="fake-model")
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=cwd,
        env=full_env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_text_output_prints_the_answer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("The answer ", "is 42."))
    result = cli(["-p", "what is the answer?"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer is 42.\n"
    assert fake_llm.requests[0].body["messages"][-1] == {"role": "user", "content": "what is the answer?"}


def test_json_output_is_one_object(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": "README.md"})], usage=(50, 5)))
    fake_llm.push(Reply.text("It is a project.", usage=(80, 6)))
    result = cli(["-p", "read it", "--output-format", "json"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    obj = json.loads(result.stdout)
    assert obj["result"] == "It is a project."
    assert obj["is_error"] is False
    assert obj["model"] == "fake-model"
    assert len(obj["session_id"]) == 36
    assert obj["usage"]["prompt_tokens"] == 130 and obj["usage"]["completion_tokens"] == 11
    assert [(c["name"], c["status"]) for c in obj["tool_calls"]] == [("read_file", "ok")]


def test_stream_json_prints_one_event_per_line(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("a", "b"))
    result = cli(["-p", "x", "--output-format", "stream-json"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "session" and types[1] == "turn_started"
    assert types.count("text_delta") == 2
    assert types[-1] == "turn_finished" and events[-1]["result"] == "ab"


def test_prompt_from_stdin(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli([], cwd=workspace, server=fake_llm, stdin="explain this\n")
    assert result.returncode == 0, result.stderr
    assert fake_llm.requests[0].body["messages"][-1]["content"] == "explain this"


def test_stdin_and_prompt_are_joined(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "summarize the log above"], cwd=workspace, server=fake_llm, stdin="ERROR at line 3\n")
    assert result.returncode == 0, result.stderr
    assert fake_llm.requests[0].body["messages"][-1]["content"] == "ERROR at line 3\n\nsummarize the log above"


def test_model_error_exits_1_with_one_sentence_and_keeps_the_message(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.error(401, {"error": {"message": "Incorrect API key provided"}}))
    result = cli(["-p", "my precious question"], cwd=workspace, server=fake_llm)
    assert result.returncode == 1
    assert "error: The model endpoint rejected the API key (HTTP 401)" in result.stderr
    assert "Traceback" not in result.stderr
    listing = cli(["sessions", "list", "--json"], cwd=workspace)
    sessions = json.loads(listing.stdout)
    assert sessions[0]["first_prompt"] == "my precious question"


def test_unreachable_endpoint_exits_1(workspace: Path) -> None:
    settings = workspace / ".qwen" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("model:\n  max_retries: 0\n", encoding="utf-8")
    trust_folder(workspace)
    # Bound but never listening: connections are refused, and no parallel test can take the port meanwhile.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_MODEL": "m", "OPENAI_API_KEY": "k"}
        result = cli(["-p", "hello"], cwd=workspace, env=env)
    assert result.returncode == 1
    assert f"Could not reach the model endpoint at http://127.0.0.1:{port}/v1 (connection refused)" in result.stderr


def test_garbage_from_the_server_exits_1(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.garbage("<html>proxy login</html>", content_type="text/html"))
    result = cli(["-p", "hello"], cwd=workspace, server=fake_llm)
    assert result.returncode == 1
    assert "does not look like an OpenAI-compatible" in result.stderr


def test_bad_usage_exits_2(workspace: Path) -> None:
    result = cli(["--frobnicate"], cwd=workspace)
    assert result.returncode == 2
    assert "unrecognized arguments: --frobnicate" in result.stderr
    result = cli(["-p", "x", "--output-format", "yaml"], cwd=workspace)
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_no_endpoint_exits_2_and_says_how_to_configure(workspace: Path) -> None:
    result = cli(["-p", "hello"], cwd=workspace)
    assert result.returncode == 2
    assert "OPENAI_BASE_URL" in result.stderr and "settings.yaml" in result.stderr


def test_malformed_settings_exits_2_naming_the_file(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    settings = workspace / ".qwen" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text("model: [unclosed\n", encoding="utf-8")
    trust_folder(workspace)  # an untrusted folder's broken file is ignored, not fatal
    result = cli(["-p", "hello"], cwd=workspace, server=fake_llm)
    assert result.returncode == 2
    assert str(settings) in result.stderr and "line" in result.stderr


def test_default_mode_refuses_shell_headless_but_yolo_runs_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.tool_calls([("c1", "run_shell_command", {"command": "touch made"})]))
    fake_llm.push(Reply.text("could not"))
    result = cli(["-p", "touch it"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0
    assert not (workspace / "made").exists()
    assert "--approval-mode" in fake_llm.requests[1].body["messages"][-1]["content"]
    fake_llm.push(Reply.tool_calls([("c2", "run_shell_command", {"command": "touch made"})]))
    fake_llm.push(Reply.text("done"))
    result = cli(["-p", "touch it", "--approval-mode", "yolo"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert (workspace / "made").exists()


def test_plan_mode_sends_only_read_only_tools(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("a plan"))
    result = cli(["-p", "plan", "--approval-mode", "plan"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    names = {t["function"]["name"] for t in fake_llm.requests[0].body["tools"]}
    # The agent tool is offered too: its subagents get the same read-only tools (tests/integration/test_subagents.py).
    assert names == {"read_file", "list_directory", "glob", "grep_search", "skill", "agent"}


def test_continue_and_resume_reopen_a_session(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("first answer"))
    first = json.loads(cli(["-p", "first question", "--output-format", "json"], cwd=workspace, server=fake_llm).stdout)
    fake_llm.push(Reply.text("unrelated"))
    cli(["-p", "another session"], cwd=workspace, server=fake_llm)
    fake_llm.push(Reply.text("second answer"))
    result = cli(["-p", "follow-up", "--resume", first["session_id"][:8], "--output-format", "json"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["session_id"] == first["session_id"]
    contents = [m["content"] for m in fake_llm.requests[-1].conversation]
    assert contents == ["first question", "first answer", "follow-up"]
    fake_llm.push(Reply.text("third"))
    cli(["-p", "again", "--continue"], cwd=workspace, server=fake_llm)
    contents = [m["content"] for m in fake_llm.requests[-1].conversation]
    assert contents[:3] == ["first question", "first answer", "follow-up"] and contents[-1] == "again"


def test_resume_of_an_unknown_session_exits_2(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    result = cli(["-p", "x", "--resume", "deadbeef"], cwd=workspace, server=fake_llm)
    assert result.returncode == 2
    assert "no session matches 'deadbeef'" in result.stderr


def test_sessions_list_text_and_json(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    assert "No sessions recorded" in cli(["sessions", "list"], cwd=workspace).stdout
    fake_llm.push(Reply.text("a"))
    cli(["-p", "the first prompt"], cwd=workspace, server=fake_llm)
    text = cli(["sessions", "list"], cwd=workspace).stdout
    assert "the first prompt" in text


def test_context_report_estimate_then_run(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    (workspace / "QWEN.md").write_text("Project rules: be brief.\n", encoding="utf-8")
    before = cli(["context", "list"], cwd=workspace, server=fake_llm)
    assert before.returncode == 0, before.stderr
    assert "assembled now, not sent" in before.stdout
    assert "QWEN.md" in before.stdout and "AGENTS.md" in before.stdout and "MISSING" in before.stdout
    fake_llm.push(Reply.text("ok", usage=(1234, 2)))
    assert cli(["-p", "hello"], cwd=workspace, server=fake_llm).returncode == 0
    after = cli(["context", "json"], cwd=workspace, server=fake_llm)
    report = json.loads(after.stdout)
    assert report["source"] == "run" and report["reported_prompt_tokens"] == 1234
    groups = {g["name"]: g["tokens"] for g in report["groups"]}
    assert groups["Instruction files"] > 0 and groups["Messages"] > 0
    shown = cli(["context", "map"], cwd=workspace)
    assert "Server reported 1,234 prompt tokens" in shown.stdout
    assert cli(["context", "bogus"], cwd=workspace).returncode == 2


def test_append_system_prompt_flag(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    result = cli(["-p", "hi", "--append-system-prompt", "Reply in haiku."], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr
    assert fake_llm.requests[0].messages[0]["content"].count("\n\n---\n\nReply in haiku.") == 1


def test_the_context_command_counts_exactly_for_a_qwen_model(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    qwen = cli(["context", "json"], cwd=workspace, server=fake_llm, env={"OPENAI_MODEL": "qwen3-coder-plus"})
    other = cli(["context", "json"], cwd=workspace, server=fake_llm)
    assert qwen.returncode == other.returncode == 0, qwen.stderr + other.stderr
    assert json.loads(qwen.stdout)["token_method"] == "exact"
    assert json.loads(other.stdout)["token_method"] == "estimate"


def test_hooks_list_says_how_each_hook_last_went_in_an_earlier_session(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    from app.paths import Paths

    config = Paths.for_cwd(workspace).config_dir
    config.mkdir(parents=True, exist_ok=True)
    hook = f"{sys.executable} -c \"import sys, json; sys.stdin.read(); print(json.dumps({{'additionalContext': 'be brief'}}))\""
    (config / "settings.yaml").write_text(f"hooks:\n  UserPromptSubmit:\n    - command: {json.dumps(hook)}\n", encoding="utf-8")
    before = cli(["hooks", "list"], cwd=workspace)
    assert before.returncode == 0, before.stderr
    assert "last run: not run yet" in before.stdout
    fake_llm.push(Reply.text("ok"))
    assert cli(["-p", "hello"], cwd=workspace, server=fake_llm).returncode == 0
    after = cli(["hooks", "list"], cwd=workspace)
    assert "last run: ok in" in after.stdout and "(additionalContext)" in after.stdout and "in an earlier session" in after.stdout
