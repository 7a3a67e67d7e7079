"""Snapshots of /hooks and of drafts in the skills panel (paths pinned so nothing varies by machine)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from app.context.skills.drafts import SOURCE_FILE, drafts_dir
from app.config import load_settings
from app.paths import Paths
from app.tui.screens.skills import SkillsScreen
from app.tui.screens.text_view import TextScreen
from tests.tui.helpers import make_app, ready

SESSION_ID = "5e55104d-0000-4000-8000-000000000000"


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.core.session.recorder.new_session_id", lambda: SESSION_ID)


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    return workspace


def test_hooks_screen(snap_compare, tmp_path: Path, pinned: None) -> None:  # type: ignore[no-untyped-def]
    workspace = _workspace(tmp_path)
    paths = Paths.for_cwd(workspace)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    hooks = {
        "PreToolUse": [{"matcher": "write_file|edit", "command": "lint-staged --quiet", "timeout": 20}],
        "PreCompact": [{"command": ["notes", "--for-summary"]}],
    }
    paths.user_settings_file.write_text(yaml.safe_dump({"hooks": hooks}), encoding="utf-8")
    app = make_app(None, workspace, settings=load_settings(paths, env={}))

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        if type(app.screen).__name__ == "FirstRunScreen":
            await pilot.press("escape")
        runner = app.runtime.hooks.runner
        runner.specs = [replace(spec, file="~/.config/agentctx/settings.yaml") for spec in runner.specs]  # the temp path varies
        app.action_hooks_command("")
        while not isinstance(app.screen, TextScreen):
            await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 30), run_before=run_before)


def test_drafts_in_the_skills_panel(snap_compare, tmp_path: Path, pinned: None) -> None:  # type: ignore[no-untyped-def]
    workspace = _workspace(tmp_path)
    folder = drafts_dir(Paths.for_cwd(workspace).config_dir) / "release-steps"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: release-steps\ndescription: Cut a release: bump, tag, changelog\n---\n1. Bump.\n", encoding="utf-8")
    (folder / SOURCE_FILE).write_text(json.dumps({"sessionId": "abcdef12-0000", "createdAt": 1.0}))
    app = make_app(None, workspace)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        if type(app.screen).__name__ == "FirstRunScreen":
            await pilot.press("escape")
        await pilot.press("f4")
        while not isinstance(app.screen, SkillsScreen):
            await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(110, 34), run_before=run_before)
