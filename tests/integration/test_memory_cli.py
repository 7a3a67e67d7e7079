"""`agentctx-tui memory list|show|status|recall|forget|index|scan`, run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.context.memory import (
    MemoryMeta,
    MemoryPaths,
    MemoryScope,
    memory_paths,
    write_meta,
)
from app.paths import Paths
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.unit.memory_support import DAY, memory_text, piece, put

ROOT = Path(__file__).resolve().parents[2]
NO_MOCKS = memory_text("no mocks in db tests", "integration tests must hit a real database, never mocks", "feedback", "Never mock the database.")
TABS = memory_text("prefers tabs", "the user prefers tabs over spaces", "user", "Use tabs.")
BROKEN = "---\nname: x: y: z\ndescription: [oops\ntype: nonsense\n---\nbody\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def mem(repo: Path) -> MemoryPaths:
    """Two good memories and three bad inputs: broken frontmatter, 10 MB, brackets in the name."""
    paths = memory_paths(Paths.for_cwd(repo))
    now = time.time()
    put(paths.project_root, "feedback/no-mocks.md", NO_MOCKS, now - 47 * DAY - 60)
    put(paths.user_root, "user/tabs.md", TABS, now - 60)
    put(paths.project_root, "project/broken.md", BROKEN)
    put(paths.project_root, "project/huge.md", memory_text("huge", "a runaway file", "project", "x" * 10_000_000))
    put(paths.project_root, "reference/links [old].md", memory_text("old links", "where the old dashboards were", "reference", "See the wiki."))
    return paths


def run(repo: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "app", "memory", *args], check=False, cwd=repo, input=stdin, capture_output=True, text=True, env=environment, timeout=60
    )


def endpoint(server: FakeOpenAIServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_MODEL": "fake-model", "OPENAI_API_KEY": "k"}


# -- list / show -----------------------------------------------------------------------------------------


def test_list_shows_every_file_with_its_problems(repo: Path, mem: MemoryPaths) -> None:
    result = run(repo, "list")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"project feedback  no mocks in db tests — integration tests must hit a real database, never mocks (47 days ago)\n    {mem.project_root / 'feedback' / 'no-mocks.md'}\n" in out
    assert "user    user      prefers tabs — the user prefers tabs over spaces (today)" in out
    assert "project not used  x: y: z — [oops" in out and "problem: unknown type 'nonsense'" in out
    assert "problem: the file is 10,000," in out
    assert "old links — where the old dashboards were" in out and "links [old].md" in out
    rows = json.loads(run(repo, "list", "--json").stdout)
    by_path = {Path(r["path"]).name: r for r in rows}
    assert set(by_path) == {"no-mocks.md", "tabs.md", "broken.md", "huge.md", "links [old].md"}
    assert by_path["no-mocks.md"] | {"mtime": 0} == {
        "scope": "project", "type": "feedback", "title": "no mocks in db tests",
        "description": "integration tests must hit a real database, never mocks",
        "path": str(mem.project_root / "feedback" / "no-mocks.md"), "rel_path": "feedback/no-mocks.md",
        "age": "47 days ago", "mtime": 0, "size": len(NO_MOCKS), "pinned": False, "problems": [],
    }
    assert by_path["broken.md"]["type"] is None and by_path["broken.md"]["problems"]
    assert by_path["huge.md"]["type"] == "project" and "only the first" in by_path["huge.md"]["problems"][0]


def test_list_without_memories_names_the_roots(repo: Path) -> None:
    out = run(repo, "list").stdout
    assert out.startswith("No memories yet.\n  project: ") and "  team: " in out


def test_show_by_name_relative_path_and_path(repo: Path, mem: MemoryPaths) -> None:
    assert run(repo, "show", "no mocks in db tests").stdout == NO_MOCKS
    assert run(repo, "show", "user/tabs.md").stdout == TABS
    assert run(repo, "show", "tabs").stdout == TABS
    assert run(repo, "show", str(mem.project_root / "feedback" / "no-mocks.md")).stdout == NO_MOCKS
    huge = run(repo, "show", "huge")
    assert huge.returncode == 0 and len(huge.stdout) < 300_000 and "only the first" in huge.stderr


def test_show_refuses_other_files_and_says_what_is_missing(repo: Path, mem: MemoryPaths) -> None:
    (repo / "secret.md").write_text("not a memory\n", encoding="utf-8")
    outside = run(repo, "show", str(repo / "secret.md"))
    assert outside.returncode == 2 and "outside the memory directories" in outside.stderr and not outside.stdout
    missing = run(repo, "show", "nothing-like-this")
    assert missing.returncode == 1 and "no memory matches 'nothing-like-this'" in missing.stderr


# -- status --------------------------------------------------------------------------------------------


def test_status_reports_the_last_runs_the_lock_and_counts(repo: Path, mem: MemoryPaths) -> None:
    at = 1_790_000_000.0  # 2026-09-21 14:13 UTC
    write_meta(mem.meta_file, MemoryMeta(last_extraction_at=at, last_extraction_status="updated", last_extraction_session_id="s1", last_dream_at=at - DAY, last_dream_status="noop"))
    mem.lock_file.write_text(str(os.getpid()), encoding="utf-8")
    out = run(repo, "status").stdout
    assert "Last extraction: 2026-09-21 14:13 (memories changed)" in out
    assert "Last dream:      2026-09-20 14:13 (nothing changed)" in out
    assert f"Dream lock:      held by pid {os.getpid()}" in out
    assert f"Project:         4 files, 3 usable, 2 with problems — {mem.project_root}" in out
    data = json.loads(run(repo, "status", "--json").stdout)
    assert data["last_extraction"] == {"at": at, "status": "updated", "session_id": "s1", "topics": []}
    assert data["lock"]["state"] == "held" and data["lock"]["pid"] == os.getpid()
    assert data["scopes"]["user"] == {"files": 1, "usable": 1, "with_problems": 0, "root": str(mem.user_root)}
    assert data["scopes"]["team"]["files"] == 0


# -- recall ---------------------------------------------------------------------------------------------


KEYWORDS_ONLY = {"AGENTCTX_MEMORY_SEMANTIC": "off"}


def test_recall_heuristic_ranks_paths(repo: Path, mem: MemoryPaths) -> None:
    data = json.loads(run(repo, "recall", "should I mock the database in integration tests?", "--json", "--heuristic", env=KEYWORDS_ONLY).stdout)
    assert data["strategy"] == "heuristic" and data["fallback_reason"] is None
    assert data["memories"][0]["path"] == str(mem.project_root / "feedback" / "no-mocks.md")
    assert data["rankers"] == ["bm25f"] and data["semantic_model"] is None
    scores = data["memories"][0]["scores"]
    assert set(scores) == {"bm25f", "coverage"} and scores["bm25f"] > 0 and 0 < scores["coverage"] <= 1
    text = run(repo, "recall", "tabs or spaces", "--heuristic", env=KEYWORDS_ONLY).stdout
    assert text.startswith("strategy: heuristic\nrankers: bm25f\n1. " + str(mem.user_root / "user" / "tabs.md"))


def test_recall_uses_the_turns_semantic_ranker_when_it_is_installed(repo: Path, mem: MemoryPaths) -> None:
    from app.context.memory.embedder import extra_installed

    result = run(repo, "recall", "should I mock the database in integration tests?", "--json", "--heuristic", env={"AGENTCTX_MEMORY_SEMANTIC": "on"})
    data = json.loads(result.stdout)
    if extra_installed():
        assert data["rankers"] == ["bm25f", "semantic"] and data["semantic_model"]
        assert {"semantic", "fused"} <= set(data["memories"][0]["scores"])
    else:  # the turn would rank by keywords alone, and the person is told why
        assert data["rankers"] == ["bm25f"] and "embeddings extra is not installed" in result.stderr


def test_recall_asks_the_configured_model(repo: Path, mem: MemoryPaths, fake_llm: FakeOpenAIServer) -> None:
    tabs = str(mem.user_root / "user" / "tabs.md")

    def pick_tabs(request):  # type: ignore[no-untyped-def]
        # The manifest names memories by short ids; the model answers with the id of the tabs memory.
        lines = request.messages[-1]["content"].splitlines()
        return Reply.text(json.dumps({"selected_memories": [line.split()[1] for line in lines if "tabs" in line.lower() and line.startswith("- m")]}))

    fake_llm.responder = pick_tabs
    data = json.loads(run(repo, "recall", "how do I indent?", "--json", env=endpoint(fake_llm)).stdout)
    assert data["strategy"] == "model" and [m["path"] for m in data["memories"]] == [tabs]
    assert len(fake_llm.requests) == 1
    run(repo, "recall", "how do I indent?", "--heuristic", env=endpoint(fake_llm))
    assert len(fake_llm.requests) == 1, "--heuristic never asks"


def test_a_broken_settings_file_is_a_usage_error(repo: Path, mem: MemoryPaths) -> None:
    settings = Paths.for_cwd(repo).user_settings_file
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("model: [unclosed\n", encoding="utf-8")
    result = run(repo, "recall", "tabs")
    assert result.returncode == 2 and "settings error" in result.stderr


# -- forget ---------------------------------------------------------------------------------------------


def test_forget_previews_and_deletes_only_with_yes(repo: Path, mem: MemoryPaths) -> None:
    target = mem.user_root / "user" / "tabs.md"
    preview = run(repo, "forget", "tabs over spaces")
    assert preview.returncode == 0
    assert preview.stdout == f"Chosen by matching the text:\n  {target} — the whole file\nNothing was deleted; run again with --yes to forget these.\n"
    assert target.exists()
    done = run(repo, "forget", "tabs over spaces", "--yes")
    assert done.returncode == 0 and f"deleted {target}" in done.stdout
    assert "Managed auto-memory forgot 1 entry from: user/" in done.stdout
    assert not target.exists() and (mem.project_root / "feedback" / "no-mocks.md").exists()
    assert "tabs" not in mem.index_file(MemoryScope.USER).read_text(encoding="utf-8")


def test_forget_without_a_match_exits_1(repo: Path, mem: MemoryPaths) -> None:
    result = run(repo, "forget", "zebra crossings", "--yes")
    assert result.returncode == 1 and result.stdout == "No managed auto-memory entries matched: zebra crossings\n"


# -- index / scan ----------------------------------------------------------------------------------------


def test_index_rebuilds_every_scope_and_leaves_a_missing_team_alone(repo: Path, mem: MemoryPaths) -> None:
    result = run(repo, "index")
    assert result.returncode == 0, result.stderr
    assert f"project: {mem.index_file(MemoryScope.PROJECT)} (3 memories, written)" in result.stdout
    assert f"user: {mem.index_file(MemoryScope.USER)} (1 memory, written)" in result.stdout
    assert "team: no team memory" in result.stdout and not mem.team_root.exists()
    assert "[no mocks in db tests](feedback/no-mocks.md)" in mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
    put(mem.team_root, "project/deploy.md", memory_text("deploy", "how we deploy", "project", "Tag, then push."))
    again = run(repo, "index").stdout
    assert f"project: {mem.index_file(MemoryScope.PROJECT)} (3 memories, unchanged)" in again
    assert f"team: {mem.index_file(MemoryScope.TEAM)} (1 memory, written)" in again


def test_scan_names_the_rules_never_the_secret(repo: Path, tmp_path: Path) -> None:
    token = "gh" + "p_" + piece("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", 36)
    leaky = tmp_path / "leaky.md"
    leaky.write_text(f"deploy with {token}\n", encoding="utf-8")
    found = run(repo, "scan", str(leaky))
    assert found.returncode == 1 and found.stdout == "github-pat\tGitHub PAT\n"
    assert token not in found.stdout + found.stderr
    piped = run(repo, "scan", "-", stdin=f"token={token}")
    assert piped.returncode == 1 and token not in piped.stdout
    clean = tmp_path / "clean.md"
    clean.write_text("nothing to see\n", encoding="utf-8")
    assert run(repo, "scan", str(clean)).returncode == 0
    missing = run(repo, "scan", str(tmp_path / "nope.md"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
