"""Semantic recall through whole turns against the local fake server: a paraphrased question that shares
no word with the memory that answers it carries that memory when ``memory.semantic`` is on, and not when
it is off; an unrelated question carries nothing; ``on`` without the extra says so in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app.context.memory import MemoryScope, memory_paths
from app.context.memory.embedder import INSTALL_HINT, extra_installed
from app.context.memory.semantic import SemanticRecall
from app.context.memory.store import MemoryStore
from app.context.memory.vector_cache import vectors_file
from app.context.report import build_report, render_detail
from app.core.events import Notice, TurnFinished
from app.paths import Paths
from app.runtime import build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply
from tests.integration.memory_fixtures import memory_settings, repo  # noqa: F401 (repo is a fixture)
from tests.unit.context.memory.concept_embedder import ConceptEmbedder

# No word in common with the memory below once stop words are dropped and words stemmed.
PARAPHRASE = "can I stub out postgres when verifying?"
UNRELATED = "how do I reverse a linked list in rust?"
needs_model = pytest.mark.skipif(not extra_installed(), reason=f"the embeddings extra is not installed ({INSTALL_HINT})")


def _store_memories(paths: Paths) -> None:
    store = MemoryStore(memory_paths(paths))
    store.write(
        MemoryScope.PROJECT, "feedback", name="integration tests use a real database",
        description="integration tests hit the docker compose database, never mocks", body="Never mock the database in integration tests.",
    )
    store.write(MemoryScope.PROJECT, "reference", name="on-call rota", description="where the on-call rota lives", body="The rota is in the ops wiki.")


def _recalled(request: RecordedRequest) -> list[str]:
    """The recall reminders of this turn (earlier turns' stay in the conversation)."""
    last_answer = max((i for i, m in enumerate(request.messages) if m["role"] == "assistant"), default=-1)
    return [m["content"] for m in request.messages[last_answer + 1 :] if m["role"] == "user" and "## Relevant memory" in str(m["content"])]


async def _ask(runtime, server: FakeOpenAIServer, prompt: str) -> tuple[list, list[str]]:  # type: ignore[no-untyped-def]
    server.push(Reply.text("Noted."))
    events = [event async for event in runtime.agent.run(prompt)]
    assert isinstance(events[-1], TurnFinished)
    return events, _recalled(server.requests[-1])


@needs_model
async def test_with_the_real_model_a_paraphrase_recalls_its_memory_and_an_unrelated_question_nothing(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False, semantic="on"), paths)
    assert runtime.memory.semantic is not None and runtime.memory.semantic.wait(30)
    assert runtime.memory.semantic.warmed.wait(30)  # the start-up warm-up embedded both memories
    cache = runtime.memory.semantic.vectors
    assert cache is not None and cache.last_save is not None
    cache.last_save.join(30)
    saved = json.loads(vectors_file(str(memory_paths(paths).project_root), "project").read_text())
    assert saved["model"] == "wordllama-l2_supercat-256" and len(saved["rows"]) == 2
    _, [reminder] = await _ask(runtime, fake_llm, "should my checks use a fake db?")
    assert "Never mock the database" in reminder and "ops wiki" not in reminder
    assert "Recalled by keyword ranking (BM25F) fused with semantic similarity." in reminder
    _, unrelated = await _ask(runtime, fake_llm, UNRELATED)
    assert unrelated == []
    assert [d.how for d in runtime.memory.recalled] == ["fused"]
    await runtime.aclose()


async def test_a_paraphrase_with_no_shared_word_is_recalled_when_semantic_is_on(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False), paths)  # semantic off
    _, recalled = await _ask(runtime, fake_llm, PARAPHRASE)
    assert recalled == [], "keywords alone cannot find it"
    # The session's semantic recall, with the small concept embedder as its model (a collaborator).
    runtime.memory.semantic = SemanticRecall.with_embedder(ConceptEmbedder())
    _, [reminder] = await _ask(runtime, fake_llm, PARAPHRASE)
    assert "Never mock the database" in reminder and "ops wiki" not in reminder
    assert "fused with semantic similarity" in reminder
    # /context detail names the path that chose it.
    detail = render_detail(build_report(runtime.assembler.last_request, source="test", session_id=runtime.session_id))
    line = next(text for text in detail.splitlines() if "integration tests use a real database" in text)
    assert "(recalled by keyword ranking (BM25F) fused with semantic similarity)" in line
    assert [d.how for d in runtime.memory.recalled] == ["fused"]
    _, unrelated = await _ask(runtime, fake_llm, UNRELATED)
    assert unrelated == []
    await runtime.aclose()


async def test_while_the_model_loads_the_turn_uses_keywords_and_is_not_held_up(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    import threading

    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False), paths)
    release = threading.Event()

    def slow_load() -> ConceptEmbedder:
        release.wait(30)
        return ConceptEmbedder()

    runtime.memory.semantic = SemanticRecall(load=slow_load)
    _, [reminder] = await _ask(runtime, fake_llm, "should the integration tests mock the database?")
    assert "Recalled by keyword ranking (BM25F)." in reminder  # answered by BM25F while the model loads
    _, none = await _ask(runtime, fake_llm, PARAPHRASE)
    assert none == []
    release.set()
    assert runtime.memory.semantic.wait(30)
    _, [later] = await _ask(runtime, fake_llm, PARAPHRASE)
    assert "fused with semantic similarity" in later and "Never mock the database" in later
    await runtime.aclose()


async def test_semantic_on_without_the_extra_says_so_once_and_recall_goes_on(fake_llm: FakeOpenAIServer, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # the package is not installed (import fails)
    paths = Paths.for_cwd(repo)
    _store_memories(paths)
    runtime = build_runtime(memory_settings(fake_llm, extraction=False, semantic="on"), paths)
    assert runtime.memory.semantic is None
    events, [reminder] = await _ask(runtime, fake_llm, "should the integration tests mock the database?")
    notices = [e.text for e in events if isinstance(e, Notice) and "memory.semantic" in e.text]
    assert notices == [f"memory.semantic is on but the embeddings extra is not installed: {INSTALL_HINT} (recall uses keywords only)"]
    assert "Recalled by keyword ranking (BM25F)." in reminder
    events, _ = await _ask(runtime, fake_llm, "and the on-call rota?")
    assert not [e for e in events if isinstance(e, Notice) and "memory.semantic" in e.text]  # said once
    await runtime.aclose()
