"""Reciprocal rank fusion of BM25F and embedding similarity, and the gates that keep unrelated questions empty."""

from __future__ import annotations

from app.context.memory.fusion import SemanticCutoff, fuse, semantic_relevant
from app.context.memory.ranking import Ranked, rank, relevant
from app.context.memory.recall import heuristic_selection, plan_recall
from app.context.memory.semantic import SemanticRecall
from app.context.memory.terms import query_terms
from tests.unit.context.memory.concept_embedder import ConceptEmbedder
from tests.unit.memory_support import NOW, entry, piece

DB = entry("integration tests use a real database", "hit the docker postgres, never mocks", "Never mock the database.", "feedback")
FREEZE = entry("release freeze", "merges stop two days before each release", "Only approved fixes go in.", "project")
BOARDS = entry("latency dashboards", "the grafana folder team-payments", "p99 latency and error rate.", "reference")
TERSE = entry("Kwame prefers terse answers", "short answers, the command first", "Kwame reads on a phone.", "user")
ALL = [DB, FREEZE, BOARDS, TERSE]


def plan(query: str, semantic: SemanticRecall | None, entries=ALL):  # type: ignore[no-untyped-def]
    return plan_recall(query, entries, now=NOW, semantic=semantic)


def semantic() -> SemanticRecall:
    return SemanticRecall.with_embedder(ConceptEmbedder())


def test_a_paraphrase_with_no_shared_word_is_recalled_only_with_semantic_recall() -> None:
    question = "can I have a fake sql while verifying?"  # no word of the memory's, after stemming
    assert plan(question, None).relevant == ()
    fused = plan(question, semantic())
    assert fused.how == "fused" and fused.relevant[0] is DB


def test_an_unrelated_question_recalls_nothing_with_semantic_recall_on() -> None:
    fused = plan("how do I reverse a linked list in rust?", semantic())
    assert fused.how == "fused" and fused.relevant == ()


def test_a_question_both_rankings_agree_on_keeps_its_first_place() -> None:
    fused = plan("when does the release freeze start?", semantic())
    assert fused.relevant[0] is FREEZE
    assert plan("when does the release freeze start?", None).relevant[0] is FREEZE


def test_the_similarity_floor_and_the_margin_below_the_best() -> None:
    cutoff = SemanticCutoff(floor=0.5, margin=0.1)
    assert semantic_relevant([(DB, 0.49), (FREEZE, 0.4)], cutoff) == []  # best under the floor: nothing
    assert semantic_relevant([(DB, 0.8), (FREEZE, 0.72), (BOARDS, 0.69)], cutoff) == [DB, FREEZE]  # within 0.1 of 0.8


def test_agreement_admits_a_memory_first_in_both_rankings_under_both_cut_offs() -> None:
    # Only "Kwame" is shared, under BM25F's coverage cut-off.
    terms = query_terms("what reply style and tone suits Kwame best?", NOW)
    keyword = rank(terms, ALL)
    assert keyword and keyword[0].entry is TERSE and relevant(keyword) == []
    cutoff = SemanticCutoff(floor=0.9, margin=0.1, agree_top=3, agree_floor=0.2)
    assert fuse(keyword, [], [(TERSE, 0.35), (DB, 0.1)], cutoff) == [TERSE]
    # Not similar enough, or not near the top of the embedding ranking: not admitted.
    assert fuse(keyword, [], [(TERSE, 0.15), (DB, 0.1)], cutoff) == []
    assert fuse(keyword, [], [(DB, 0.5), (FREEZE, 0.45), (BOARDS, 0.4), (TERSE, 0.35)], cutoff) == []


def test_fused_order_keeps_bm25f_first_unless_the_embeddings_disagree_strongly() -> None:
    keyword = [Ranked(FREEZE, 2.0, 1.0, 0), Ranked(BOARDS, 1.9, 1.0, 0)]
    cutoff = SemanticCutoff(floor=0.5, margin=0.5)
    # The embeddings prefer the second one a little: BM25F's first stays first.
    assert fuse(keyword, keyword, [(BOARDS, 0.9), (FREEZE, 0.85)], cutoff) == [FREEZE, BOARDS]
    # The embeddings do not have BM25F's first among their best at all: the memory both like leads.
    assert fuse(keyword, keyword, [(BOARDS, 0.9), (DB, 0.1)], cutoff) == [BOARDS, FREEZE]
    # A memory only the embeddings find (above the floor) joins after those both rankings hold.
    assert fuse(keyword, keyword, [(BOARDS, 0.9), (TERSE, 0.85)], cutoff) == [BOARDS, FREEZE, TERSE]


def test_a_memory_holding_a_secret_found_only_by_semantic_recall_is_not_recalled() -> None:
    token = "ghp_" + piece("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
    leaky = entry("integration tests use a real database", "hit the docker postgres, never mocks", f"Never mock the database. CI token {token}", "feedback")
    fused = plan("can I stub out postgres when verifying?", semantic(), [leaky, FREEZE, BOARDS])
    assert fused.relevant == (leaky,)  # semantic recall found it...
    assert heuristic_selection(fused, 5) == []  # ...and the secret filter still keeps it out of the request


def test_while_the_model_loads_recall_is_bm25f_alone() -> None:
    loading = SemanticRecall(load=ConceptEmbedder)  # never started: as if still loading
    result = plan("when does the release freeze start?", loading)
    assert result.how == "heuristic" and result.relevant[0] is FREEZE


def test_a_blocking_plan_waits_for_the_model_and_reports_each_rankers_scores() -> None:
    # What `memory recall` does: a semantic recall not loaded yet is waited for, not skipped.
    loads: list[int] = []
    recall = SemanticRecall(lambda: loads.append(1) or ConceptEmbedder())  # type: ignore[func-returns-value]
    fused = plan_recall("can I have a fake sql while verifying?", ALL, now=NOW, semantic=recall, block_semantic=True)
    assert loads == [1] and fused.how == "fused" and fused.rankers == ("bm25f", "semantic")
    assert fused.relevant[0] is DB and {"semantic", "fused"} <= set(fused.scores[0])
    keywords = plan("when does the release freeze start?", None)
    assert keywords.rankers == ("bm25f",) and set(keywords.scores[0]) == {"bm25f", "coverage"}


def test_a_best_similarity_under_the_floor_counts_only_when_it_stands_out_from_the_tenth() -> None:
    cutoff = SemanticCutoff(floor=0.58, margin=0.1, distinct_floor=0.4, distinct_gap=0.08, distinct_rank=10)
    others = [entry(f"other {i}", rel_path=f"project/o{i}.md") for i in range(12)]
    flat = [(DB, 0.47), *((e, 0.46 - i * 0.001) for i, e in enumerate(others))]  # an unanswerable question: flat
    assert semantic_relevant(flat, cutoff) == []
    standout = [(DB, 0.5), (FREEZE, 0.45), *((e, 0.38 - i * 0.001) for i, e in enumerate(others))]
    assert semantic_relevant(standout, cutoff) == [DB, FREEZE]  # within the margin of the best
    assert semantic_relevant([(DB, 0.39), *((e, 0.2) for e in others)], cutoff) == []  # under the distinct floor
    assert semantic_relevant(standout[:5], cutoff) == []  # too few memories to tell a standout from noise
