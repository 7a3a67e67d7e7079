"""Hook settings, matching, the JSON contract, timeouts, floods, sanitizing, trust."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.hooks.runner import HookRunner, context_from, decision_from, sanitize_context
from app.hooks.spec import HookSpec, parse_hook
from app.hooks.trust import FolderTrust


def _script(tmp_path: Path, body: str, name: str = "hook.py") -> list[str]:
    path = tmp_path / name
    path.write_text("import json, sys\n" + body, encoding="utf-8")
    return [sys.executable, str(path)]


def _runner(tmp_path: Path, *specs: HookSpec, trusted: bool = True) -> tuple[HookRunner, list[str]]:
    said: list[str] = []
    return HookRunner(list(specs), tmp_path, trusted=lambda: trusted, report=said.append, session_id="s1"), said


def test_parse_reports_each_mistake() -> None:
    assert parse_hook({"event": "Nope", "command": "x"})[1].endswith("unknown event (known: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, PostCompact, InstructionsLoaded, Stop)")
    assert "must be a string or a list of strings" in parse_hook({"event": "Stop", "command": 3})[1]
    assert "is empty" in parse_hook({"event": "Stop", "command": "  "})[1]
    assert "cannot be split" in parse_hook({"event": "Stop", "command": "echo 'unclosed"})[1]
    assert "not a valid regular expression" in parse_hook({"event": "PreToolUse", "command": "x", "matcher": "("})[1]
    assert "positive number" in parse_hook({"event": "Stop", "command": "x", "timeout": -1})[1]
    spec, problem = parse_hook({"event": "PreToolUse", "command": "lint --fix 'a b'", "matcher": "write_file|edit", "timeout": 5000, "layer": "project"})
    assert problem == "" and spec is not None
    assert spec.command == ("lint", "--fix", "a b") and spec.timeout == 600 and spec.layer == "project"
    assert spec.matches("edit") and not spec.matches("read_file") and not spec.matches(None)


async def test_payload_in_answer_out(tmp_path: Path) -> None:
    command = _script(tmp_path, "data = json.load(sys.stdin)\nprint(json.dumps({'additionalContext': data['prompt'].upper(), 'seen': data['hook_event_name']}))\n")
    runner, said = _runner(tmp_path, HookSpec("UserPromptSubmit", tuple(command)))
    [result] = await runner.run("UserPromptSubmit", {"prompt": "hi <there>"})
    assert result.ok and result.answer["seen"] == "UserPromptSubmit"
    assert context_from([result]) == "HI &lt;THERE&gt;"
    assert said == [] and runner.last


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("print('not json at all')", "not one JSON object"),
        ("print('[1, 2]')", "JSON that is not an object"),
        ("sys.stderr.write('boom\\n'); sys.exit(3)", "exited with code 3: boom"),
        ("import time; time.sleep(30)", "did not finish within 0.5 s"),
        ("sys.stdout.write('x' * 400000)", "printed more than 256 KB"),
    ],
)
async def test_a_bad_hook_is_reported_once_and_ignored(tmp_path: Path, body: str, problem: str) -> None:
    runner, said = _runner(tmp_path, HookSpec("Stop", tuple(_script(tmp_path, body)), timeout=0.5))
    [result] = await runner.run("Stop", {})
    assert not result.ok and problem in result.problem
    await runner.run("Stop", {})
    assert len(said) == 1 and problem in said[0] and said[0].startswith("Hook 'Stop: ")


async def test_a_missing_program_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    runner, said = _runner(tmp_path, HookSpec("Stop", ("/no/such/program",)))
    [result] = await runner.run("Stop", {})
    assert not result.ok and "could not be started" in result.problem


async def test_matcher_selects_hooks(tmp_path: Path) -> None:
    command = tuple(_script(tmp_path, "print('{}')"))
    runner, _ = _runner(tmp_path, HookSpec("PreToolUse", command, matcher="write_file|edit"), HookSpec("PreToolUse", command))
    assert len(await runner.run("PreToolUse", {}, match="edit")) == 2
    assert len(await runner.run("PreToolUse", {}, match="read_file")) == 1


async def test_untrusted_project_hooks_do_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = tuple(_script(tmp_path, f"open({str(marker)!r}, 'w').write('x')"))
    runner, said = _runner(tmp_path, HookSpec("Stop", command, layer="project"), trusted=False)
    assert await runner.run("Stop", {}) == []
    assert not marker.exists() and "not trusted" in said[0]


def test_decisions_and_sanitizing() -> None:
    from app.hooks.runner import HookResult

    spec = HookSpec("PreToolUse", ("x",))
    results = [HookResult(spec, True, {"decision": "allow"}), HookResult(spec, True, {"decision": "deny", "reason": "no writes on Fridays"}), HookResult(spec, False, {"decision": "ask"})]
    assert decision_from(results) == ("deny", "no writes on Fridays")
    assert decision_from([]) == ("", "")
    assert len(sanitize_context("<x>" + "y" * 9000)) == 4000
    assert sanitize_context("  <b>  ") == "&lt;b&gt;"


def test_trust_is_remembered(tmp_path: Path) -> None:
    trust = FolderTrust(tmp_path / "config")
    folder = tmp_path / "repo"
    folder.mkdir()
    assert trust.state(folder) == "unknown"
    trust.remember(folder, False)
    assert FolderTrust(tmp_path / "config").state(folder) == "declined"
    trust.remember(folder, True)
    assert FolderTrust(tmp_path / "config").state(folder) == "trusted"
