"""Fixtures for the TUI tests: a small workspace to run the agent in, and its Paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.paths import Paths


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# Demo project\n\nA tiny workspace for the TUI tests.\n", encoding="utf-8")
    return root


@pytest.fixture
def paths(workspace: Path) -> Paths:
    return Paths.for_cwd(workspace)
