"""Shared test setup: hermetic locations, no real endpoint, deterministic snapshots."""

from __future__ import annotations

import os
from pathlib import Path

# Before anything imports Textual's app machinery: colour on, no animations.
os.environ.pop("NO_COLOR", None)
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

import pytest  # noqa: E402
import pytest_textual_snapshot  # noqa: E402
import textual.constants  # noqa: E402

textual.constants.TEXTUAL_ANIMATIONS = "none"

from tests.fakes.fixtures import fake_llm  # noqa: E402,F401
from tests.workspace import workspace_for  # noqa: E402

# The reliability report (scenarios, inputs fuzzed, bytes lost) at the end of a run.
from tests.reliability.report import pytest_runtest_logreport, pytest_terminal_summary  # noqa: E402,F401

ROOT = Path(__file__).resolve().parent.parent


@classmethod  # type: ignore[misc]
def _snapshot_dirname(cls, *, test_location):  # type: ignore[no-untyped-def]
    return str(ROOT / "snapshots" / Path(test_location.filepath).stem)


pytest_textual_snapshot.SVGImageExtension.dirname = _snapshot_dirname

_ENDPOINT_VARS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "AGENTCTX_CONTEXT_WINDOW", "AGENTCTX_APPROVAL_MODE")


@pytest.fixture
def workspace(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A project folder of its own, holding what the test module's ``WORKSPACE`` says (tests/workspace.py)."""
    return workspace_for(request.module).create(tmp_path)


@pytest.fixture(autouse=True)
def hermetic_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own AGENTCTX_HOME and no endpoint from the developer's shell."""
    home = tmp_path_factory.mktemp("agentctx-home")
    monkeypatch.setenv("AGENTCTX_HOME", str(home))
    for var in _ENDPOINT_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("TZ", "UTC")
    # Semantic recall is on by itself where the embeddings extra is installed (a developer's venv,
    # not CI): recall must rank the same everywhere, so the tests of semantic recall turn it on.
    monkeypatch.setenv("AGENTCTX_MEMORY_SEMANTIC", "off")
    return home
