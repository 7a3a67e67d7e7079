"""``make eval-recall``: Hit@1, Hit@5, MRR and unrelated recalls for each ranker on our own recall set.

The set (bench/recall_set.py) is generated from templates of the four memory
kinds; each ranker sees the same memories as MemoryEntry objects. "Recalled"
is what recall would put in the request (at most five, after the ranker's own
cut-off): Hit@k asks whether the right memory is among the first k recalled,
MRR uses its rank there (0 when not recalled), and for the unrelated questions
the table counts how many memories they recall and how often they recall none.

Rankers: the heuristic the app used before (kept in bench/recall_heuristic.py
for this comparison only), BM25F (app/context/memory/ranking.py), and BM25F
fused with the embeddings by reciprocal rank (app/context/memory/fusion.py),
exactly as plan_recall does it; the fused row needs the extra
(``pip install 'agentctx-tui[embeddings]'``) and says so when it is missing.
``--candidates`` also times loading the model and embedding a query.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from app.context.memory.document import parse_memory_text
from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import MemoryScope
from app.context.memory.recall import plan_recall
from bench.recall_heuristic import query_tokens, rank_memories
from bench.recall_set import NOW, Memory, Question, build

LIMIT = 5
Ranker = Callable[[str, Sequence[MemoryEntry]], list[MemoryEntry]]


def to_entries(memories: Sequence[Memory]) -> list[MemoryEntry]:
    entries = []
    for index, memory in enumerate(memories):
        text = f"---\nname: {memory.title}\ndescription: {memory.description}\ntype: {memory.kind}\n---\n\n{memory.body}\n"
        rel = f"{memory.key}.md"
        # File clocks spread over a year, so a ranker that breaks ties by them shows it.
        mtime = NOW - (index * 7919 % 365) * 86_400
        entries.append(MemoryEntry(MemoryScope.PROJECT, Path("/eval/project") / rel, rel, parse_memory_text(text), mtime, len(text)))
    return entries


def heuristic(query: str, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
    return [s.entry for s in rank_memories(query_tokens(query), entries) if s.score > 0][:LIMIT]


def bm25f_ranker() -> Ranker:
    def ranker(query: str, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
        # The one recall path (plan_recall), as a turn and `memory recall` take it, keywords only.
        return list(plan_recall(query, entries, now=NOW).relevant[:LIMIT])

    return ranker


def fused_ranker() -> Ranker | None:
    from app.context.memory.embedder import extra_installed, load_wordllama
    from app.context.memory.semantic import SemanticRecall

    if not extra_installed():
        return None
    semantic = SemanticRecall.with_embedder(load_wordllama())

    def ranker(query: str, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
        # The same path a turn takes (plan_recall with semantic recall), waiting for the vectors.
        plan = plan_recall(query, entries, now=NOW, semantic=semantic, block_semantic=True)
        assert plan.how == "fused"
        return list(plan.relevant[:LIMIT])

    return ranker


def time_model() -> str:
    import statistics
    import time

    from app.context.memory.embedder import load_wordllama

    started = time.perf_counter()
    embedder = load_wordllama()
    loaded = time.perf_counter() - started
    embedder.embed(["warm"])
    samples = []
    for text in ("when does the payments code freeze start?", "支付服务的代码冻结什么时候开始", "who owns the ledger service?") * 20:
        t = time.perf_counter()
        embedder.embed([text])
        samples.append((time.perf_counter() - t) * 1000)
    return f"{embedder.name}: import + load {loaded:.2f} s, one query {statistics.median(samples):.3f} ms (median of {len(samples)})"


def time_plans(memories: Sequence[Memory], questions: Sequence[Question], copies: int) -> str:
    """A turn's ranking (plan_recall) with and without semantic recall, over ``copies`` copies of the set."""
    import statistics
    import time

    from app.context.memory.embedder import load_wordllama
    from app.context.memory.semantic import SemanticRecall

    entries = [e for n in range(copies) for e in to_entries([Memory(f"{m.key}-{n}", m.kind, m.title, m.description, m.body) for m in memories])]
    semantic = SemanticRecall.with_embedder(load_wordllama())
    started = time.perf_counter()
    semantic.vectors.vectors(entries, block=True)  # type: ignore[union-attr]
    embedded = time.perf_counter() - started
    texts = [q.text for q in questions[:60]]
    times: dict[str, list[float]] = {"BM25F": [], "fused": []}
    for name, with_semantic in (("BM25F", None), ("fused", semantic)):
        plan_recall(texts[0], entries, now=NOW, semantic=with_semantic)
        for text in texts:
            t = time.perf_counter()
            plan_recall(text, entries, now=NOW, semantic=with_semantic)
            times[name].append((time.perf_counter() - t) * 1000)
    return (f"{len(entries)} memories: embedding all {embedded:.2f} s; a turn's ranking, median of {len(texts)}: "
            + ", ".join(f"{name} {statistics.median(v):.1f} ms" for name, v in times.items()))


def evaluate(ranker: Ranker, entries: Sequence[MemoryEntry], questions: Sequence[Question]) -> dict[str, float]:
    key_of = {id(e): e.rel_path.removesuffix(".md") for e in entries}
    hit1 = hit5 = rr = 0.0
    answerable = [q for q in questions if q.target is not None]
    unrelated = [q for q in questions if q.target is None]
    by_tag: dict[str, list[float]] = {}
    for question in answerable:
        keys = [key_of[id(e)] for e in ranker(question.text, entries)]
        rank_of = keys.index(question.target) + 1 if question.target in keys else 0
        hit1 += rank_of == 1
        hit5 += 0 < rank_of <= 5
        rr += 1 / rank_of if rank_of else 0
        by_tag.setdefault(question.tag, []).append(float(0 < rank_of <= 5))
    recalled = [len(ranker(q.text, entries)) for q in unrelated]
    result = {
        "hit1": hit1 / len(answerable),
        "hit5": hit5 / len(answerable),
        "mrr": rr / len(answerable),
        "unrelated_avg": sum(recalled) / len(recalled),
        "unrelated_none": sum(1 for n in recalled if n == 0) / len(recalled),
    }
    result.update({f"hit5_{tag}": sum(v) / len(v) for tag, v in by_tag.items()})
    return result


def main(argv: Sequence[str] = ()) -> int:
    memories, questions = build()
    entries = to_entries(memories)
    answerable = sum(1 for q in questions if q.target)
    print(f"Recall set: {len(memories)} memories, {len(questions)} questions ({answerable} answerable, {len(questions) - answerable} unrelated); {datetime.now(UTC):%Y-%m-%d}")
    if "--candidates" in argv:
        print(time_model())
        for copies in (1, 16):
            print(time_plans(memories, questions, copies))
    rankers: list[tuple[str, Ranker]] = [("old heuristic", heuristic), ("BM25F", bm25f_ranker())]
    fused = fused_ranker()
    if fused is not None:
        rankers.append(("fused", fused))
    rows = [(name, evaluate(ranker, entries, questions)) for name, ranker in rankers]
    tags = sorted({k.removeprefix("hit5_") for _, r in rows for k in r if k.startswith("hit5_")})
    header = f"| {'ranker':<13} | Hit@1 | Hit@5 |  MRR  | unrelated: memories recalled (avg) | unrelated: recall nothing |"
    print(header)
    print("|" + "|".join("-" * (len(cell)) for cell in header.split("|")[1:-1]) + "|")
    for name, r in rows:
        print(f"| {name:<13} | {r['hit1']:.3f} | {r['hit5']:.3f} | {r['mrr']:.3f} | {r['unrelated_avg']:>34.2f} | {r['unrelated_none']:>24.0%} |")
    if fused is None:
        print("| fused         | not run: the embeddings extra is not installed (pip install 'agentctx-tui[embeddings]') |")
    print()
    print("Hit@5 by question kind: " + "; ".join(f"{tag}: " + ", ".join(f"{name} {r.get('hit5_' + tag, 0):.2f}" for name, r in rows) for tag in tags))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
