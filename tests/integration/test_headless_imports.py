"""What a plain `agentctx-tui -p` loads: none of the heavy optional stacks it does not use.

Start-up time is mostly imports (bench/startup.py, bench/peers.py measure it); this pins
*which* modules a plain turn imports, not how long it takes. The modules are read from
`python -X importtime` of the real command line against the scripted local server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
# Each is used only when something asks for it: the TUI, an MCP server in the settings, a
# shell command to analyse, a YAML settings or memory file, memories to rank, a Python walk
# when rg cannot run.
NOT_ON_A_PLAIN_TURN = ("textual", "rich", "mcp", "tree_sitter", "tree_sitter_bash", "yaml", "snowballstemmer", "zhconv", "pathspec")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "README.md").write_text("# Project\n", encoding="utf-8")
    return root


def imported_by_a_turn(server: FakeOpenAIServer, cwd: Path) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test", OPENAI_MODEL="fake-model")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "app", "-p", "Say hello."],
        cwd=cwd, env=env, input="", capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "Hello there.\n"
    lines = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    modules = {name for name in lines if name and name != "imported package"}
    assert "app.runtime" in modules and "httpx2" in modules  # the listing is real
    return modules


def _top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_a_plain_turn_imports_none_of_the_optional_stacks(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hello there."))
    loaded = _top_level(imported_by_a_turn(fake_llm, workspace)) & set(NOT_ON_A_PLAIN_TURN)
    assert loaded == set()


def test_the_memory_writers_are_not_imported_without_memories(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hello there."))
    modules = imported_by_a_turn(fake_llm, workspace)
    # Extraction, dreaming, forgetting and the ranker run only with memories. (Since the memory package
    # was consolidated, index, terms and statefile also hold what every turn reads: index_for_prompt,
    # normalize_text, iso_utc; the stemmer and zhconv they load lazily are checked by the test above.)
    unused = {f"app.context.memory.{name}" for name in ("forget", "gates", "lock", "ranking", "term_segment", "bulk", "index_check", "bm25f", "walk")}
    assert modules & unused == set()


# What a plain turn (no memory folder, no shell command, no compaction, a new session) never needs,
# each loaded where it is first used; together they were about a fifth of a turn's imports.
NOT_IMPORTED_BY_A_PLAIN_TURN = (
    # memory: recall, the store and its listing, the agents, the index writer, the scanners
    *(f"app.context.memory.{name}" for name in ("recall", "recall_task", "selector", "terms", "store", "scan", "agents", "index", "secrets", "entry", "document")),
    "app.context.untrusted",
    # the summarizer and what only a compaction uses
    *(f"app.context.compaction.{name}" for name in ("summary", "quality", "attachments", "shrink")),
    # the bash grammar, the read-only table and the process runner; diffs and snapshots of edits
    *(f"app.core.tools.{name}" for name in ("shell_syntax", "shell_wrappers", "shell_readonly", "shell_runner", "diffs", "file_snapshot")),
    # reopening a session: the listing and the record reader (orjson)
    "app.core.session.listing", "app.core.session.resume", "app.core.session.reader", "orjson",
    # standard modules only a rarer path needs: uuid (and platform through it), the resource readers
    "uuid", "zipfile",
)


def test_a_plain_turn_leaves_the_rarer_paths_unloaded(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Hello there."))
    modules = imported_by_a_turn(fake_llm, workspace)
    assert modules & set(NOT_IMPORTED_BY_A_PLAIN_TURN) == set()


def test_the_listing_sees_yaml_when_a_settings_file_needs_it(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    # The control for the tests above: the same listing does show yaml once a YAML file is read.
    settings = Paths.for_cwd(workspace).user_settings_file
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("ui:\n  theme: dark\n", encoding="utf-8")
    fake_llm.push(Reply.text("Hello there."))
    assert "yaml" in _top_level(imported_by_a_turn(fake_llm, workspace))
