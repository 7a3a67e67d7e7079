"""The recall scorer the app used before BM25F, kept here only so bench/recall_eval.py can compare.

Lexical overlap between the query and each memory.

Per query token: +4 when the title holds it, +3 the description, +1 the first
1,200 characters of the body. A memory with any overlap also gains up to 2 for
query words typical of its type ("deadline" for project, "dashboard" for
reference). Ties go to the newer memory, then to the earlier in the input
(project before user).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.context.memory.entry import MemoryEntry
from app.context.memory.paths import MemoryType
from app.context.memory.terms import CJK_RUN, WORD_RUN, normalize_text

TITLE_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT = 4, 3, 1
MAX_TYPE_BOOST = 2
MAX_SCORED_BODY_CHARS = 1200

TYPE_KEYWORDS: dict[MemoryType, frozenset[str]] = {
    MemoryType.USER: frozenset({"user", "preference", "preferences", "background", "role", "terse"}),
    MemoryType.FEEDBACK: frozenset({"feedback", "rule", "rules", "avoid", "style", "summary"}),
    MemoryType.PROJECT: frozenset({"project", "goal", "goals", "incident", "deadline", "release"}),
    MemoryType.REFERENCE: frozenset({"reference", "dashboard", "ticket", "docs", "doc", "link"}),
}


@dataclass(frozen=True)
class ScoredMemory:
    entry: MemoryEntry
    score: int
    order: int  # position in the input


def score_memory(tokens: Sequence[str], entry: MemoryEntry) -> int:
    if not tokens:
        return 0
    title = normalize_text(entry.title)
    description = normalize_text(entry.description)
    body = normalize_text(entry.body[:MAX_SCORED_BODY_CHARS])
    lexical = 0
    for token in tokens:
        if token in title:
            lexical += TITLE_WEIGHT
        if token in description:
            lexical += DESCRIPTION_WEIGHT
        if token in body:
            lexical += BODY_WEIGHT
    if lexical == 0:
        return 0
    keywords = TYPE_KEYWORDS.get(entry.type, frozenset()) if entry.type else frozenset()
    return lexical + min(sum(1 for token in tokens if token in keywords), MAX_TYPE_BOOST)


def rank_memories(tokens: Sequence[str], entries: Sequence[MemoryEntry]) -> list[ScoredMemory]:
    """Every entry with its score, best first (score, then newer, then input order)."""
    scored = [ScoredMemory(entry, score_memory(tokens, entry), order) for order, entry in enumerate(entries)]
    scored.sort(key=lambda s: (-s.score, -s.entry.mtime, s.order))
    return scored


MIN_WORD_TOKEN_CHARS = 3


def query_tokens(query: str) -> list[str]:
    """The old tokens: words of three or more characters, CJK bigrams, no stop words, no stemming."""
    text = normalize_text(query)
    found: list[str] = []
    position = 0
    for run in CJK_RUN.finditer(text):
        found.extend(w.group(0) for w in WORD_RUN.finditer(text[position : run.start()]) if len(w.group(0)) >= MIN_WORD_TOKEN_CHARS)
        chars = run.group(0)
        found.extend(chars[i : i + 2] for i in range(len(chars) - 1))
        position = run.end()
    found.extend(w.group(0) for w in WORD_RUN.finditer(text[position:]) if len(w.group(0)) >= MIN_WORD_TOKEN_CHARS)
    return list(dict.fromkeys(found))[:64]
