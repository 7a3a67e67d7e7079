"""View-only pruning of old tool results (OpenClaw's cache-TTL pruning).

Once the provider's prompt cache has expired there is no cache to preserve, so
large old tool results are trimmed (head + tail) and, if the window is still too
full, cleared. Only the request view changes; history and record keep every byte.
Images are never trimmed (they weigh in the total, as OpenClaw counts them).
"""

from __future__ import annotations

import re
from dataclasses import replace
from app.dataclass import dataclass
from functools import cache

from app.core.history import Message

KEEP_LAST_ASSISTANTS = 3
SOFT_TRIM_RATIO = 0.3
HARD_CLEAR_RATIO = 0.5
MIN_PRUNABLE_CHARS = 50_000
SOFT_TRIM_MAX = 4_000
SOFT_TRIM_HEAD = 1_500
SOFT_TRIM_TAIL = 1_500
PLACEHOLDER = "[Old tool result content cleared]"
IMAGE_CHARS = 8_000
_CJK_CLASS = r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]"


@cache
def _cjk() -> re.Pattern[str]:
    # Compiled on first use: a class of wide Unicode ranges takes about 3 ms to compile, and
    # most turns never prune or estimate a summary.
    return re.compile(_CJK_CLASS)


def cjk_count(text: str) -> int:
    """How many kana, CJK ideographs and Hangul syllables ``text`` holds (each costs about a token)."""
    return len(_cjk().findall(text))


@dataclass
class PruneResult:
    """The view to send after pruning, and how many old tool results were trimmed or cleared."""

    messages: list[Message]
    trimmed: int = 0
    cleared: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.trimmed or self.cleared)


def text_chars(text: str) -> int:
    """Characters, with each CJK character weighing 4 (it costs about a token each)."""
    return len(text) + 3 * cjk_count(text)


def _message_chars(message: Message) -> int:
    total = text_chars(message.content) + text_chars(message.reasoning)
    total += sum(len(c.arguments) for c in message.tool_calls) + IMAGE_CHARS * len(message.images)
    return total if message.role in ("user", "assistant", "tool") else 256


def prune_view(messages: list[Message], context_window_tokens: int, *, keep: frozenset[int] = frozenset()) -> PruneResult:
    """The messages to send, with old large tool results trimmed or cleared (copies; inputs untouched).

    ``keep``: positions never trimmed (parts the person pinned)."""
    if context_window_tokens <= 0:
        return PruneResult(messages)
    char_window = context_window_tokens * 4
    assistants = [i for i, m in enumerate(messages) if m.role == "assistant"]
    if len(assistants) < KEEP_LAST_ASSISTANTS:
        return PruneResult(messages)
    cutoff = assistants[-KEEP_LAST_ASSISTANTS]
    first_user = next((i for i, m in enumerate(messages) if m.role == "user"), len(messages))
    prunable = [i for i in range(first_user + 1, cutoff) if messages[i].role == "tool" and messages[i].content != PLACEHOLDER and i not in keep]
    total = sum(_message_chars(m) for m in messages)
    if total / char_window < SOFT_TRIM_RATIO or not prunable:
        return PruneResult(messages)
    out = list(messages)
    trimmed = cleared = 0
    for index in prunable:
        content = out[index].content
        if len(content) > SOFT_TRIM_MAX and len(content) > SOFT_TRIM_HEAD + SOFT_TRIM_TAIL:
            kept = (
                f"{content[:SOFT_TRIM_HEAD]}\n...\n{content[-SOFT_TRIM_TAIL:]}\n\n"
                f"[Tool result trimmed: kept first {SOFT_TRIM_HEAD} chars and last {SOFT_TRIM_TAIL} chars of {len(content)} chars.]"
            )
            total -= text_chars(content) - text_chars(kept)
            out[index] = replace(out[index], content=kept)
            trimmed += 1
    remaining = sum(len(out[i].content) for i in prunable)
    if total / char_window < HARD_CLEAR_RATIO or remaining < MIN_PRUNABLE_CHARS:
        return PruneResult(out, trimmed, 0)
    for index in prunable:
        if total / char_window < HARD_CLEAR_RATIO:
            break
        total -= text_chars(out[index].content) - len(PLACEHOLDER)
        out[index] = replace(out[index], content=PLACEHOLDER)
        cleared += 1
    return PruneResult(out, trimmed, cleared)
