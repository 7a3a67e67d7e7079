"""Conformance on real-world shapes: the instruction blocks, the skills listing and the git section a
monorepo produces, as the fake server receives them, against the text Qwen Code 0.24.4 sends."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.config import Settings
from app.context.prompt.git_snapshot import HEADER
from app.paths import Paths
from app.runtime import build_runtime
from tests.conformance.shapes import PYTEST_NOTES, git, monorepo, rules_file, write
from tests.fakes.openai_server import FakeOpenAIServer, Reply

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git executable")

NAMES = ["QWEN.md", "AGENTS.md", "CLAUDE.md"]


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _settings(server: FakeOpenAIServer, window: int = 128_000) -> Settings:
    settings = Settings()
    settings.model.base_url = server.base_url
    settings.model.name = "fake-model"
    settings.model.api_key = "k"
    settings.model.max_retries = 0
    settings.model.context_window = window
    settings.sessions.auto_title = False  # its side query would take a reply scripted for the conversation
    settings.context.file_name = list(NAMES)
    settings.memory.enabled = False
    settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
    return settings


async def _first_request(server: FakeOpenAIServer, cwd: Path, window: int = 128_000) -> list[dict]:
    server.push(Reply.text("ok"))
    runtime = build_runtime(_settings(server, window), Paths.for_cwd(cwd))
    assert runtime.agent is not None
    [event async for event in runtime.agent.run("hi")]
    await runtime.aclose()
    return server.requests[0].body["messages"]


def _block(path: str, text: str) -> str:
    return f"--- Context from: {path} ---\n{text.strip()}\n--- End of Context from: {path} ---"


def _instructions(system: str) -> str:
    start = system.index("--- Context from: ")
    end = system.find("\n", system.rindex("--- End of Context from: "))
    return system[start : end if end != -1 else len(system)]


async def test_nested_agents_md_at_every_level_and_a_claude_md_symlink_read_once(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo")
    messages = await _first_request(fake_llm, root / "packages" / "core" / "src")
    system = messages[0]["content"]
    expected = "\n\n".join(
        [
            _block("../../../AGENTS.md", (root / "AGENTS.md").read_text()),
            _block("../../AGENTS.md", "# Packages\n\nEvery package has its own tests."),
            _block("../AGENTS.md", "# core\n\n" + PYTEST_NOTES),
            _block("AGENTS.md", "# core/src\n\nKeep modules under 400 lines."),
        ]
    )
    assert _instructions(system) == expected, "outermost first, each file whole (24 K chars on 128 K), CLAUDE.md -> AGENTS.md once"
    # @pytest.fixture, `@latest`, @deprecated and @maintainers are prose, not imports.
    assert "Import failed" not in system and "<!-- Imported from" not in system


async def test_a_claude_md_that_is_only_an_import(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo")
    system = (await _first_request(fake_llm, root / "docs"))[0]["content"]
    blocks = _instructions(system).split("\n\n--- Context from: ")
    assert [b.split(" ---", 1)[0].removeprefix("--- Context from: ") for b in blocks] == ["../AGENTS.md", "AGENTS.md", "CLAUDE.md"]
    assert blocks[-1] == (
        "CLAUDE.md ---\n<!-- Imported from: AGENTS.md -->\n# docs\n\nWrite in plain English.\n\n"
        "<!-- End of import from: AGENTS.md -->\n--- End of Context from: CLAUDE.md ---"
    )


@pytest.mark.parametrize("chars", [20_000, 34_555, 40_000])
async def test_long_agents_md_files_are_whole_on_a_large_window(fake_llm: FakeOpenAIServer, tmp_path: Path, chars: int) -> None:
    root = tmp_path / "repo"
    text = rules_file("Guidelines", chars)
    write(root / "AGENTS.md", text)
    system = (await _first_request(fake_llm, root))[0]["content"]
    assert _instructions(system) == _block("AGENTS.md", text)


async def test_a_40k_agents_md_on_a_32k_window_is_cut_at_a_line_keeping_its_last_section(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    text = rules_file("Guidelines", 40_000)
    write(root / "AGENTS.md", text)
    system = (await _first_request(fake_llm, root, window=32_768))[0]["content"]
    body = _instructions(system).split("\n", 1)[1].rsplit("\n", 1)[0]
    head, rest = body.split("\n\n[… AGENTS.md is cut here to fit the instruction budget: kept lines 1-", 1)
    marker, tail = rest.split("]\n\n", 1)
    lines = text.strip().split("\n")
    assert head.split("\n") == lines[: len(head.split("\n"))]
    assert tail.split("\n") == lines[len(lines) - len(tail.split("\n")) :]
    assert tail.endswith("- Never remove a public function without a deprecation cycle.")
    assert len(body) <= 20_000


async def test_the_skills_listing(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo")
    messages = await _first_request(fake_llm, root)
    listing = messages[1]["content"]
    release = "<skill>\n<name>\nrelease\n</name>\n<description>\nCut a release: bump, tag, push. (project)\n</description>\n<location>\nproject\n</location>\n</skill>"
    lint = (
        "<skill>\n<name>\nlint\n</name>\n<description>\n"
        "Run the linters; don&apos;t &quot;fix&quot; &lt;generated&gt; files. (project)\n"
        "</description>\n<location>\nproject\n</location>\n</skill>"
    )
    assert lint in listing and release in listing, "the .qwen/skills release wins; a |- description keeps its first line"
    assert "The other release skill" not in listing and "Only on main" not in listing
    assert listing.index(lint) < listing.index(release), "sorted by name"


async def test_the_git_section(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo")
    system = (await _first_request(fake_llm, root / "packages" / "core" / "src"))[0]["content"]
    log = git(root, "log", "--format=%h %s").split("\n")
    expected = (
        f"{HEADER}\n```text\ngit: Current branch: main\ngit: Status:\ngit: M engine.py\ngit: ?? ../../../notes.txt\n"
        f"git: Recent commits:\ngit: {log[0]}\ngit: {log[1]}\n```"
    )
    assert f"--- End of Context from: AGENTS.md ---\n\n{expected}" in system, "right after the instruction blocks"
