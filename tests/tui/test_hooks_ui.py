"""The folder trust question covers project hooks (asked once), and /hooks."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from app.config import load_settings
from app.hooks.trust import FolderTrust
from app.paths import Paths
from app.tui.screens.trust import TrustScreen
from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import SIZE, make_app, ready, wait_until


def _project_hook(workspace: Path) -> None:
    script = workspace / "hook.py"
    script.write_text("print('{}')\n", encoding="utf-8")
    settings = workspace / ".qwen" / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(yaml.safe_dump({"hooks": {"Stop": [{"command": [sys.executable, str(script)]}]}}), encoding="utf-8")


def _settings(server: FakeOpenAIServer, workspace: Path):  # type: ignore[no-untyped-def]
    settings = load_settings(Paths.for_cwd(workspace), {"model.base_url": server.base_url, "model.name": "fake-model", "model.api_key": "k"}, env={})
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    # The session's and the TUI's side queries would take replies scripted for the conversation.
    settings.sessions.auto_title = settings.suggestions.enabled = False
    return settings


async def test_the_trust_question_is_asked_once_and_remembered(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _project_hook(workspace)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, workspace))
    async with app.run_test(size=SIZE) as pilot:
        # Not ready(): the session-start worker waits for this very answer. Folder trust is the one
        # question for project hooks and the rest of the project layer.
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="trust question")
        assert any(line.startswith("hooks (1 command run on events): Stop: ") for line in app.screen.changes)
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, TrustScreen), what="answered")
        await wait_until(pilot, lambda: app.runtime is not None and len(app.runtime.hooks.runner.specs) == 1, what="reopened with the hook")
    paths = Paths.for_cwd(workspace)
    assert FolderTrust(paths.config_dir).state(paths.project_root) == "trusted"
    again = make_app(fake_llm, workspace, settings=_settings(fake_llm, workspace))
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for _ in range(20):
            await pilot.pause()
        assert not isinstance(again.screen, TrustScreen), "asked once"


async def test_hooks_command_lists_and_changes_trust(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _project_hook(workspace)
    paths = Paths.for_cwd(workspace)
    FolderTrust(paths.config_dir).remember(paths.project_root, False)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm, workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.load_text("/hooks")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/hooks")
        assert "No hooks are configured" in app.screen.body, "a declined folder's hooks are not loaded"
        await pilot.press("escape")
        app.prompt.load_text("/hooks trust")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), what="the folder trust dialog")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.runtime is not None and len(app.runtime.hooks.runner.specs) == 1, what="reopened with the hook")
        assert FolderTrust(paths.config_dir).state(paths.project_root) == "trusted"
        app.prompt.load_text("/hooks")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="/hooks")
        body = app.screen.body
        assert "Project folder trust: trusted" in body and "Stop: " in body and "from project settings" in body
