"""The git section and repeated imports byte for byte against what Qwen Code 0.24.4 sent for the same
repositories.

The expected bytes were captured by running Qwen Code on the repositories of git_cases.py
(``scripts/capture_qwen_git.py``); here the same repositories are built, one turn runs against the
loopback fake server, and the git section of the system prompt the server received is compared.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from app.config import Settings
from app.paths import Paths
from app.runtime import build_runtime
from scripts.capture_qwen_sections import git_section, instruction_blocks
from tests.conformance.git_cases import CASES, GIT_ENV, IMPORT_CASES
from tests.fakes.openai_server import FakeOpenAIServer, Reply

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git executable")

DATA = Path(__file__).parent / "data"
CAPTURED: dict[str, str | None] = json.loads((DATA / "qwen_git_sections.json").read_text())
CAPTURED_IMPORTS: dict[str, str | None] = json.loads((DATA / "qwen_import_blocks.json").read_text())


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", GIT_ENV["GIT_CONFIG_NOSYSTEM"])


async def _system_prompt(server: FakeOpenAIServer, cwd: Path) -> str:
    settings = Settings()
    settings.model.base_url, settings.model.name, settings.model.api_key = server.base_url, "fake-model", "k"
    settings.model.max_retries = 0
    settings.sessions.auto_title = False
    settings.context.file_name = ["QWEN.md", "AGENTS.md"]
    settings.memory.enabled = False
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    server.push(Reply.text("ok"))
    runtime = build_runtime(settings, Paths.for_cwd(cwd))
    assert runtime.agent is not None
    [event async for event in runtime.agent.run("hi")]
    await runtime.aclose()
    return server.requests[0].body["messages"][0]["content"]


def test_every_case_was_captured() -> None:
    assert set(CAPTURED) == set(CASES) and set(CAPTURED_IMPORTS) == set(IMPORT_CASES)


@pytest.mark.parametrize("case", sorted(CASES))
async def test_the_git_section_is_qwen_codes(case: str, tmp_path: Path) -> None:
    cwd = CASES[case](tmp_path)
    with FakeOpenAIServer() as server:
        system = await _system_prompt(server, cwd)
    assert git_section(system) == CAPTURED[case]


@pytest.mark.parametrize("case", sorted(IMPORT_CASES))
async def test_repeated_imports_are_expanded_as_qwen_code_does(case: str, tmp_path: Path) -> None:
    cwd = IMPORT_CASES[case](tmp_path)
    with FakeOpenAIServer() as server:
        system = await _system_prompt(server, cwd)
    assert instruction_blocks(system) == CAPTURED_IMPORTS[case]
