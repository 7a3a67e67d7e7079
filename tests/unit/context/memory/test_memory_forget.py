"""Forgetting: candidates, selection (model, then text matching) and removal after confirmation."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.memory.forget import bullet_entries, remove_entries
from app.context.memory.forget import (
    FORGET_SCHEMA,
    ForgetSelectorError,
    apply_forget,
    forget_candidates,
    forget_message,
    match_forget_candidates,
    parse_forget_answer,
    select_forget_candidates,
)
from app.context.memory.schedule import read_meta
from app.context.memory.store import MemoryPathError, MemoryStore
from app.core.llm.errors import LLMError
from tests.unit.memory_support import NOW, FakeProvider, make_paths, memory_text, put

TOOLS_BODY = "- Prefers pytest over unittest\n- Uses uv for environments\n  (not pip)\n- Likes short answers"


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    paths = make_paths(tmp_path)
    put(paths.project_root, "user/tools.md", memory_text("Tools", "Tooling preferences", "user", TOOLS_BODY))
    put(paths.project_root, "project/launch.md", memory_text("Launch", "Launch date is 2026-10-01", "project", "Marketing needs a week."))
    put(paths.project_root, "feedback/loose.md", "Remember: the staging password rotates monthly")
    return MemoryStore(paths)


def test_bullets() -> None:
    entries = bullet_entries(TOOLS_BODY)
    assert [e.summary for e in entries] == ["Prefers pytest over unittest", "Uses uv for environments", "Likes short answers"]
    assert entries[1].text == "- Uses uv for environments\n  (not pip)"
    assert bullet_entries("- only one bullet\nand text") == []
    assert bullet_entries("plain text") == []


def test_remove_bullets_by_summary_ignoring_case() -> None:
    body, removed, remaining = remove_entries("Intro\n\n" + TOOLS_BODY, ["USES UV FOR ENVIRONMENTS"])
    assert body == "Intro\n\n- Prefers pytest over unittest\n- Likes short answers"
    assert (removed, remaining) == (1, 2)


def test_candidate_ids(store: MemoryStore) -> None:
    candidates = forget_candidates(store.list("project"))
    assert [c.id for c in candidates] == ["feedback/loose.md", "project/launch.md", "user/tools.md:0", "user/tools.md:1", "user/tools.md:2"]
    assert candidates[3].summary == "Uses uv for environments" and candidates[3].bullet == 1
    assert candidates[1].bullet is None and candidates[1].path == store.paths.project_root / "project" / "launch.md"


def test_other_scopes_get_prefixed_ids(store: MemoryStore) -> None:
    put(store.paths.user_root, "user/tools.md", memory_text("Tools", "Mine", "user", "one thing"))
    assert [c.id for c in forget_candidates(store.list("user"))] == ["user:user/tools.md"]


def test_text_matching_fallback(store: MemoryStore) -> None:
    candidates = forget_candidates(store.list("project"))
    assert [c.id for c in match_forget_candidates("  USES   uv ", candidates)] == ["user/tools.md:1"]
    assert [c.id for c in match_forget_candidates("launch", candidates)] == ["project/launch.md"]
    assert match_forget_candidates("   ", candidates) == []
    assert len(match_forget_candidates("e", candidates, limit=2)) == 2


def test_answer_checks(store: MemoryStore) -> None:
    candidates = forget_candidates(store.list("project"))
    with pytest.raises(ForgetSelectorError, match="^Unknown candidate id: nope$"):
        parse_forget_answer({"selectedCandidateIds": ["nope"]}, candidates, 5)
    with pytest.raises(ForgetSelectorError):
        parse_forget_answer({"ids": []}, candidates, 5)
    chosen, reasoning = parse_forget_answer({"selectedCandidateIds": ["user/tools.md:2"], "reasoning": "asked"}, candidates, 5)
    assert [c.id for c in chosen] == ["user/tools.md:2"] and reasoning == "asked"
    assert FORGET_SCHEMA["required"] == ["selectedCandidateIds"] and FORGET_SCHEMA["additionalProperties"] is False


async def test_model_selection(store: MemoryStore) -> None:
    provider = FakeProvider({"selectedCandidateIds": ["project/launch.md"], "reasoning": "the launch"})
    selection = await select_forget_candidates("forget the launch date", store.list("project"), provider=provider)
    assert selection.strategy == "model" and selection.reasoning == "the launch"
    assert selection.paths == (store.paths.project_root / "project" / "launch.md",)
    request = provider.requests[0]
    assert request.temperature == 0.0
    assert "- project/launch.md [project] Launch: Launch date is 2026-10-01" in request.messages[0].content
    assert (store.paths.project_root / "project" / "launch.md").exists()  # selecting deletes nothing


@pytest.mark.parametrize(
    "provider",
    [
        FakeProvider({"selectedCandidateIds": ["made/up.md"]}),
        FakeProvider(error=LLMError("down", kind="server")),
        FakeProvider({"selectedCandidateIds": []}, delay=60),
    ],
    ids=["unknown-id", "error", "timeout"],
)
async def test_model_failure_falls_back_to_text_matching(store: MemoryStore, provider: FakeProvider) -> None:
    selection = await select_forget_candidates("pytest", store.list("project"), provider=provider, timeout=0.05)
    assert selection.strategy == "heuristic"
    assert [c.id for c in selection.candidates] == ["user/tools.md:0"]
    assert selection.fallback_reason


async def test_nothing_to_forget(store: MemoryStore) -> None:
    assert (await select_forget_candidates("  ", store.list("project"))).strategy == "none"
    assert (await select_forget_candidates("zebra", store.list("project"))).candidates == ()


async def test_forgetting_one_bullet_keeps_the_rest(store: MemoryStore) -> None:
    selection = await select_forget_candidates("uv for environments", store.list("project"))
    result = apply_forget(store, selection.candidates, now=NOW)
    path = store.paths.project_root / "user" / "tools.md"
    assert result.removed == 1 and result.rewritten == (path,) and result.deleted == ()
    assert path.read_text() == (
        "---\nname: Tools\ndescription: Tooling preferences\ntype: user\n---\n\n"
        "- Prefers pytest over unittest\n- Likes short answers\n"
    )
    assert result.message == "Managed auto-memory forgot 1 entry from: user/"
    index = store.paths.index_file("project").read_text()
    assert "(user/tools.md)" in index and "(project/launch.md)" in index
    assert read_meta(store.paths.meta_file).updated_at == NOW


def test_forgetting_every_bullet_deletes_the_file(store: MemoryStore) -> None:
    bullets = [c for c in forget_candidates(store.list("project")) if c.bullet is not None]
    result = apply_forget(store, bullets, now=NOW)
    assert result.removed == 3 and not (store.paths.project_root / "user" / "tools.md").exists()
    assert result.message == "Managed auto-memory forgot 3 entries from: user/"


def test_whole_files_and_files_without_frontmatter(store: MemoryStore) -> None:
    candidates = {c.id: c for c in forget_candidates(store.list("project"))}
    result = apply_forget(store, [candidates["project/launch.md"], candidates["feedback/loose.md"]], now=NOW)
    assert result.removed == 2 and len(result.deleted) == 2
    assert result.message == "Managed auto-memory forgot 2 entries from: project/, feedback/"
    assert "(project/launch.md)" not in store.paths.index_file("project").read_text()


def test_apply_by_path(store: MemoryStore) -> None:
    path = store.paths.project_root / "user" / "tools.md"
    result = apply_forget(store, [path], now=NOW)
    assert result.deleted == (path,) and result.removed == 3
    again = apply_forget(store, [path], now=NOW)
    assert again.removed == 0 and again.problems


def test_apply_refuses_paths_outside_memory(store: MemoryStore, tmp_path: Path) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("keep")
    with pytest.raises(MemoryPathError):
        apply_forget(store, [victim])
    assert victim.exists()


def test_forget_message() -> None:
    assert forget_message(1, ["user/"]) == "Managed auto-memory forgot 1 entry from: user/"
    assert forget_message(4, ["user/", "project/"]) == "Managed auto-memory forgot 4 entries from: user/, project/"
