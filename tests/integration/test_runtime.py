"""Wiring from settings to an agent: resume restores history and the context size; plan mode narrows tools."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.core.history import Message, Usage
from app.core.session.recorder import SessionRecorder
from app.core.tools.permissions import ApprovalMode
from app.paths import Paths
from app.runtime import build_runtime


def _settings() -> Settings:
    settings = Settings()
    settings.model.base_url = "http://127.0.0.1:9/v1"
    settings.model.name = "qwen3-max"
    return settings


def test_resume_restores_messages_and_the_last_usage(tmp_path: Path) -> None:
    paths = Paths.for_cwd(tmp_path)
    recorder = SessionRecorder(paths.chats_dir, cwd=tmp_path, version="t")
    recorder.append_message(Message.user("hello"), durable=True)
    recorder.append_message(Message(role="assistant", content="hi"), usage=Usage(prompt_tokens=5000, completion_tokens=120))
    runtime = build_runtime(_settings(), paths, continue_latest=True)
    assert runtime.session_id == recorder.session_id
    assert [m.content for m in runtime.resumed_messages] == ["hello", "hi"]
    assert runtime.agent is not None and runtime.agent.last_usage == Usage(prompt_tokens=5000, completion_tokens=120)
    assert runtime.context_window == 262_144


def test_continue_with_nothing_to_continue_starts_fresh_with_a_warning(tmp_path: Path) -> None:
    runtime = build_runtime(_settings(), Paths.for_cwd(tmp_path), continue_latest=True)
    assert runtime.resumed_messages == []
    assert any("No earlier session" in w for w in runtime.warnings)


def test_plan_mode_offers_only_read_only_tools_and_no_endpoint_means_no_agent(tmp_path: Path) -> None:
    settings = _settings()
    settings.approval_mode = "plan"
    runtime = build_runtime(settings, Paths.for_cwd(tmp_path))
    read_only = {"read_file", "list_directory", "glob", "grep_search", "skill", "agent"}  # its subagents are read-only too
    assert set(runtime.tools.names()) == read_only
    assert runtime.agent is not None and set(runtime.agent.tools.names()) == read_only
    # The full set stays with the runtime, so leaving plan mode offers the writing tools again.
    runtime.set_mode(ApprovalMode.DEFAULT)
    assert {"write_file", "edit", "run_shell_command"} <= set(runtime.agent.tools.names())
    assert build_runtime(Settings(), Paths.for_cwd(tmp_path)).agent is None


def test_bad_permission_rules_become_warnings(tmp_path: Path) -> None:
    settings = _settings()
    settings.permissions.deny = ["run_shell_command(rm *", "read_file"]
    runtime = build_runtime(settings, Paths.for_cwd(tmp_path))
    assert any("run_shell_command(rm *" in w for w in runtime.warnings)
