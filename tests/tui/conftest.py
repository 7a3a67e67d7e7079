"""Fixtures for the TUI tests: a small workspace to run the agent in, and its Paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.paths import Paths
from tests.workspace import Workspace

WORKSPACE = Workspace(files={"README.md": "# Demo project\n\nA tiny workspace for the TUI tests.\n"})


@pytest.fixture
def paths(workspace: Path) -> Paths:
    return Paths.for_cwd(workspace)
