"""Folder trust in the TUI: the question on first open (asked once, remembered), /trust, /permissions,
a refused skill grant in the approval dialog, and snapshots of the dialog and of /permissions."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from textual.pilot import Pilot

from app.config import load_settings
from app.core.tools.permissions import ApprovalMode
from app.paths import Paths
from app.trust import FolderTrust
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.text_view import TextScreen
from app.tui.screens.trust import TrustScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.trust_support import trust_folder
from tests.tui.helpers import SIZE, make_app, make_settings, ready, run_command, send, wait_until

PROJECT = {
    "approval_mode": "auto-edit",
    "permissions": {"allow": ["run_shell_command(npm test)"]},
    "context": {"include_directories": ["../shared"]},
    "model": {"base_url": "https://llm.example.com/v1"},
}


def _user_settings(server: FakeOpenAIServer, workspace: Path, **extra: object) -> None:
    """The user's own endpoint, in the user layer (a reopened session loads the settings again)."""
    data = {
        "model": {"base_url": server.base_url, "name": "fake-model", "api_key": "k", "context_window": 32000, "max_retries": 0},
        "memory": {"extraction": False, "dream": False, "recall_model": False},
        "sessions": {"auto_title": False, "recap_on_resume": False},
        "suggestions": {"enabled": False},
        **extra,
    }
    path = Paths.for_cwd(workspace).user_settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")


def _project(workspace: Path, data: dict = PROJECT) -> Path:
    path = workspace / ".qwen" / "settings.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _app(server: FakeOpenAIServer, workspace: Path):  # type: ignore[no-untyped-def]
    return make_app(server, workspace, settings=load_settings(Paths.for_cwd(workspace)))


async def _settle(pilot: Pilot) -> None:  # type: ignore[type-arg]
    await pilot.app.workers.wait_for_complete()
    for _ in range(10):
        await pilot.pause()


async def test_the_first_open_asks_once_and_trusting_applies_the_project_layer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _user_settings(fake_llm, workspace)
    _project(workspace)
    paths = Paths.for_cwd(workspace)
    app = _app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="trust question")
        screen = app.screen
        assert isinstance(screen, TrustScreen)
        text = "\n".join(screen.changes)
        assert "model endpoint: https://llm.example.com/v1" in text and "approval mode: auto-edit" in text
        assert "permissions allow: run_shell_command(npm test)" in text and "extra directories" in text
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.DEFAULT, "ignored while the question is open"
        await pilot.press("y")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.policy.mode is ApprovalMode.AUTO_EDIT, what="reopened with the layer")
        assert app.runtime.folder_trusted and app.settings.permissions.allow == ["run_shell_command(npm test)"]
        assert app.runtime.settings.model.base_url == "https://llm.example.com/v1", "the same settings apply once trusted"
    assert FolderTrust(paths.config_dir).state(paths.project_root) == "trusted"
    again = _app(fake_llm, workspace)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _settle(pilot)
        assert not isinstance(again.screen, TrustScreen), "asked once"


async def test_declining_is_remembered_and_the_layer_stays_ignored(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _user_settings(fake_llm, workspace)
    _project(workspace)
    app = _app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="trust question")
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustScreen), what="answered")
        await _settle(pilot)
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.DEFAULT
        assert app.runtime.settings.model.base_url == fake_llm.base_url
        fake_llm.push(Reply.text("still your endpoint"))
        await send(pilot, "hello")
        assert len(fake_llm.requests) == 1
    paths = Paths.for_cwd(workspace)
    assert FolderTrust(paths.config_dir).state(paths.project_root) == "declined"
    again = _app(fake_llm, workspace)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _settle(pilot)
        assert not isinstance(again.screen, TrustScreen)


async def test_a_folder_that_brings_nothing_is_not_asked_about(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await _settle(pilot)
        assert not isinstance(app.screen, TrustScreen)
    paths = Paths.for_cwd(workspace)
    assert not (paths.config_dir / "trusted-folders.json").exists()


async def test_trust_command_untrusts_and_the_session_continues_without_the_layer(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _user_settings(fake_llm, workspace)
    _project(workspace, {"approval_mode": "auto-edit"})
    trust_folder(workspace)
    app = _app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        fake_llm.push(Reply.text("first answer"))
        await send(pilot, "hello")
        assert app.runtime is not None and app.runtime.policy.mode is ApprovalMode.AUTO_EDIT
        session = app.runtime.session_id
        await run_command(pilot, "/trust")
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="/trust dialog")
        assert app.screen.state == "trusted" and app.screen.changes == ["approval mode: auto-edit"]
        await pilot.press("n")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.policy.mode is ApprovalMode.DEFAULT, what="reopened")
        assert app.runtime.session_id == session and len(app.runtime.resumed_messages) == 2, "the conversation is kept"
        await run_command(pilot, "/hooks trust")  # the old spelling opens the same dialog
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="/hooks trust dialog")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.runtime is not None and app.runtime.policy.mode is ApprovalMode.AUTO_EDIT, what="trusted again")


async def test_permissions_lists_each_rule_with_where_it_came_from(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _user_settings(fake_llm, workspace, permissions={"deny": ["run_shell_command(rm *)"], "allow": ["read_file"]})
    project = _project(workspace, {"permissions": {"ask": ["write_file(docs/**)"]}})
    trust_folder(workspace)
    app = make_app(fake_llm, workspace, settings=load_settings(Paths.for_cwd(workspace), {"approval_mode": "auto-edit"}))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        runtime = app.runtime
        assert runtime is not None
        added = runtime.policy.allow_for_session(runtime.registry.get("run_shell_command"), {"command": "git status"})
        await run_command(pilot, "/permissions")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/permissions")
        body = app.screen.body
    user = Paths.for_cwd(workspace).user_settings_file
    assert "Approval mode: auto-edit (from command line)" in body
    assert f"run_shell_command(rm *)    ← user settings ({user})" in body
    assert f"write_file(docs/**)    ← project settings ({project})" in body
    assert added and f"{added[0]}    ← your answer in this session" in body
    assert "This folder: trusted" in body and "team memory" in body


SETUP_SKILL = """---
name: setup
description: Prepares the repository.
allowedTools: ["run_shell_command"]
---
Run the setup commands.
"""


async def test_the_approval_dialog_says_when_a_skill_grant_was_refused(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    skill = workspace / ".qwen" / "skills" / "setup" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SETUP_SKILL, encoding="utf-8")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="asked: the skill grants tools")
        assert app.screen.changes == ["tool grants of the project skill 'setup': run_shell_command"]
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustScreen), what="answered")
        await _settle(pilot)
        fake_llm.push(
            Reply.tool_calls([("s1", "skill", {"skill": "setup"})]),
            Reply.tool_calls([("c1", "run_shell_command", {"command": "touch pwned"})]),
            Reply.text("ok"),
        )
        await send(pilot, "set it up", wait=False)
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="approval")
        note = app.screen.grant_note
        assert '"setup" (run_shell_command)' in note and "grants nothing" in note
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ApprovalScreen), what="rejected")
    assert not (workspace / "pwned").exists()


# -- snapshots --------------------------------------------------------------------------------------


@pytest.fixture
def shown_as_home_dev(monkeypatch: pytest.MonkeyPatch) -> None:
    # The workspace lives under this run's tmp dir; the dialog shows it as a fixed path.
    monkeypatch.setattr("app.tui.screens.trust.shown_folder", lambda folder: "~/src/cloned-repo")


@pytest.fixture(autouse=True)
def pinned_session_id(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    if "snapshot" in request.node.name:
        monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: "7a057ed0-0000-4000-8000-000000000000")


def test_trust_dialog_snapshot(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, shown_as_home_dev: None) -> None:  # type: ignore[no-untyped-def]
    _user_settings(fake_llm, workspace)
    _project(workspace, {**PROJECT, "hooks": {"Stop": [{"command": "./notify.sh"}]}})
    app = _app(fake_llm, workspace)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, TrustScreen), what="trust question")
        pilot.app.clear_notifications()
        pilot.app.prompt.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


def test_permissions_snapshot(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.core.tools import sandbox

    # The sandbox line names what this kernel has; the snapshot shows one fixed answer.
    monkeypatch.setattr(sandbox, "sandbox_status", lambda: sandbox.SandboxStatus(True, abi=7))
    settings = make_settings(fake_llm)
    settings.permissions.deny = ["run_shell_command(rm *)", "run_shell_command(git push *)"]
    settings.permissions.allow = ["run_shell_command(npm test)", "read_file"]
    # Where the lists came from, as load_settings records it (the real paths are under this run's tmp dir).
    settings.permission_sources = {"deny": "user settings (~/.config/agentctx/settings.yaml)", "allow": "project settings (.qwen/settings.yaml)"}
    app = make_app(fake_llm, workspace, settings=settings)

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await ready(pilot)
        await run_command(pilot, "/permissions")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, TextScreen), what="/permissions")
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)
