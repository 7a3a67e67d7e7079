"""Recall on long multi-session dialogue (bench/dialogue_set.py): Hit@1, Hit@5 and MRR per kind and ranker.

Each conversation is its own memory store (one file per observation); each question is asked
of its conversation's memories. "Recalled" is what recall would put in the request: at most
five memories after the ranker's own cut-off. Hit@k: one of the question's evidence memories
is among the first k recalled; MRR uses the first evidence memory's rank (0 when not recalled).
Adversarial questions have no evidence: the table gives the share that recall nothing.

Rankers, all computed here over the same files:

- ``BM25``: plain Okapi BM25 (k1 1.2, b 0.75) over the whole file text, lower-cased words, no
  stop words, no stemming; always the top five (a reference: it has no cut-off);
- ``BM25 stemmed``: the same with English stop words dropped and Snowball stems (a reference);
- ``agentctx``: the app's own recall (app/context/memory/recall.py plan_recall), exactly as a
  turn and ``agentctx-tui memory recall`` rank, with the default install;
- ``agentctx + embeddings``: the same with the embeddings extra (semantic recall fused in), when
  it is installed.

The tuning split (conversations 0-2) is the one the ranker's constants were chosen on; the
held-out split (3-5) was not looked at while choosing them. Both are reported.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from app.context.memory.document import parse_memory_text
from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import MemoryScope
from app.context.memory.recall import plan_recall
from app.context.memory.terms import ENGLISH_STOP_WORDS
from bench.dialogue_set import HELD_OUT, NOW, TUNE, Conversation, Memory, Question, build

LIMIT = 5
KINDS = ("single-hop", "temporal", "speaker", "multi-hop")
Ranker = Callable[[str, Sequence[MemoryEntry]], list[MemoryEntry]]


def to_entries(memories: Sequence[Memory], number: int) -> list[MemoryEntry]:
    entries = []
    for index, memory in enumerate(memories):
        text = f"---\nname: {memory.title}\ndescription: {memory.description}\ntype: {memory.kind}\n---\n\n{memory.body}\n"
        rel = f"{memory.key}.md"
        entries.append(MemoryEntry(MemoryScope.PROJECT, Path(f"/eval/dialogue{number}") / rel, rel, parse_memory_text(text), NOW - index * 3600, len(text)))
    return entries


_WORDS = re.compile(r"\w+")


class Bm25:
    """Okapi BM25 over each memory's whole text (name, description, body), for the reference rows."""

    def __init__(self, entries: Sequence[MemoryEntry], analyse: Callable[[str], list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.entries, self.analyse, self.k1, self.b = entries, analyse, k1, b
        self.postings: dict[str, dict[int, int]] = {}
        self.lengths = []
        for at, entry in enumerate(entries):
            terms = analyse(f"{entry.title}\n{entry.description}\n{entry.body}")
            self.lengths.append(len(terms))
            for term, count in Counter(terms).items():
                self.postings.setdefault(term, {})[at] = count
        self.average = sum(self.lengths) / max(len(self.lengths), 1)

    def top(self, query: str, limit: int = LIMIT) -> list[MemoryEntry]:
        scores: dict[int, float] = {}
        count = len(self.entries)
        for term in dict.fromkeys(self.analyse(query)):
            posting = self.postings.get(term, {})
            idf = math.log(1 + (count - len(posting) + 0.5) / (len(posting) + 0.5))
            for at, tf in posting.items():
                norm = self.k1 * (1 - self.b + self.b * self.lengths[at] / self.average)
                scores[at] = scores.get(at, 0.0) + idf * tf * (self.k1 + 1) / (tf + norm)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        return [self.entries[at] for at, _ in best]


def plain_terms(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def stemmed_terms(text: str) -> list[str]:
    import snowballstemmer

    stemmer = stemmed_terms.__dict__.setdefault("stemmer", snowballstemmer.stemmer("english"))
    return stemmer.stemWords([w for w in _WORDS.findall(text.lower()) if w not in ENGLISH_STOP_WORDS])


def agentctx(query: str, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
    return list(plan_recall(query, entries, now=NOW).relevant[:LIMIT])


def fused() -> Ranker | None:
    from app.context.memory.embedder import extra_installed, load_wordllama
    from app.context.memory.semantic import SemanticRecall

    if not extra_installed():
        return None
    semantic = SemanticRecall.with_embedder(load_wordllama())

    def ranker(query: str, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
        return list(plan_recall(query, entries, now=NOW, semantic=semantic, block_semantic=True).relevant[:LIMIT])

    return ranker


def recalled(conversations: Sequence[Conversation]) -> dict[str, list[tuple[Question, list[str]]]]:
    """Per ranker, each question with the keys of what it recalled."""
    semantic = fused()
    out: dict[str, list[tuple[Question, list[str]]]] = {"BM25": [], "BM25 stemmed": [], "agentctx": []}
    if semantic is not None:
        out["agentctx + embeddings"] = []
    for convo in conversations:
        entries = to_entries(convo.memories, convo.number)
        key_of = {id(e): e.rel_path.removesuffix(".md") for e in entries}
        plain, stemmed = Bm25(entries, plain_terms), Bm25(entries, stemmed_terms)
        rankers: dict[str, Ranker] = {
            "BM25": lambda q, _e: plain.top(q), "BM25 stemmed": lambda q, _e: stemmed.top(q), "agentctx": agentctx,
        }
        if semantic is not None:
            rankers["agentctx + embeddings"] = semantic
        for name, ranker in rankers.items():
            for question in convo.questions:
                out[name].append((question, [key_of[id(e)] for e in ranker(question.text, entries)]))
    return out


def scores(rows: Sequence[tuple[Question, list[str]]]) -> dict[str, float]:
    result: dict[str, float] = {}
    by_kind: dict[str, list[tuple[float, float, float]]] = {}
    adversarial: list[bool] = []
    for question, keys in rows:
        if not question.evidence:
            adversarial.append(not keys)
            continue
        ranks = [keys.index(k) + 1 for k in question.evidence if k in keys]
        first = min(ranks) if ranks else 0
        by_kind.setdefault(question.tag, []).append((float(first == 1), float(0 < first <= 5), 1 / first if first else 0.0))
    every = [v for values in by_kind.values() for v in values]
    for name, values in (("all", every), *by_kind.items()):
        result[f"{name} hit1"] = sum(v[0] for v in values) / len(values)
        result[f"{name} hit5"] = sum(v[1] for v in values) / len(values)
        result[f"{name} mrr"] = sum(v[2] for v in values) / len(values)
    result["adversarial none"] = sum(adversarial) / len(adversarial) if adversarial else 0.0
    return result


def table(title: str, per_ranker: dict[str, list[tuple[Question, list[str]]]], numbers: Sequence[int]) -> list[str]:
    lines = [f"**{title}**", ""]
    header = "| ranker | Hit@1 | Hit@5 | MRR | " + " | ".join(f"{k} Hit@5" for k in KINDS) + " | adversarial: recall nothing |"
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    for name, rows in per_ranker.items():
        r = scores([row for row in rows if row[0].conversation in numbers])
        kinds = " | ".join(f"{r.get(k + ' hit5', 0):.3f}" for k in KINDS)
        lines.append(f"| {name} | {r['all hit1']:.3f} | {r['all hit5']:.3f} | {r['all mrr']:.3f} | {kinds} | {r['adversarial none']:.0%} |")
    return lines


def main(argv: Sequence[str] = ()) -> int:
    conversations = build()
    per_ranker = recalled(conversations)
    memories = [len(c.memories) for c in conversations]
    questions = Counter(q.tag for c in conversations for q in c.questions)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Long-dialogue recall set (bench/dialogue_set.py): {len(conversations)} conversations, {min(memories)}-{max(memories)} memories each "
          f"({sum(memories)} in all), {sum(questions.values())} questions ({', '.join(f'{k} {v}' for k, v in sorted(questions.items()))}); "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {load:.2f}")
    if "agentctx + embeddings" not in per_ranker:
        print("(agentctx + embeddings not run: the embeddings extra is not installed: pip install 'agentctx-tui[embeddings]')")
    print()
    for title, numbers in ((f"Held-out split (conversations {', '.join(map(str, HELD_OUT))}, not used for tuning)", HELD_OUT),
                           (f"Tuning split (conversations {', '.join(map(str, TUNE))})", TUNE)):
        print("\n".join(table(title, per_ranker, numbers)))
        print()
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
