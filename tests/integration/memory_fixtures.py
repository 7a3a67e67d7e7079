"""What the memory tests share: one memory file as the extraction agent writes it, a git repository, settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer

MEMORY = "---\nname: no mocks in db tests\ndescription: integration tests must hit a real database, never mocks\ntype: feedback\n---\nNever mock the database in integration tests.\nWhy: a mocked migration hid a broken release.\nHow to apply: use the docker compose database.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def memory_settings(server: FakeOpenAIServer, **memory: object) -> Settings:
    """Settings for the scripted server; recall by heuristic, no dreaming unless asked."""
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    settings.model.max_retries = 0
    settings.memory.recall_model = False
    settings.memory.dream = False
    # The first request waits for local recall only until it settles; a loaded test machine gets
    # more than the 150 ms a person's turn allows, so no test depends on the clock.
    settings.memory.recall_wait_seconds = 10.0
    # Keyword recall only, wherever the embeddings extra happens to be installed; the semantic tests turn it on.
    settings.memory.semantic = "off"
    # The session's and the TUI's side queries would take replies scripted for the conversation.
    settings.sessions.auto_title = settings.suggestions.enabled = False
    for key, value in memory.items():
        setattr(settings.memory, key, value)
    return settings
