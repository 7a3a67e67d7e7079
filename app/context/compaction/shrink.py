"""Cutting the largest parts of a conversation to their head and tail until it fits a budget.

A summary cannot help when there is nothing before the live request to summarize (a
first turn with one huge paste or tool result), nor when the summarizer's own request
would not fit its window. Then the large parts are cut instead, oldest first, each to
its head and tail with a marker, as a single oversized message already is
(slimming.py). The session record keeps every character; only what is sent shrinks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, replace
from app.dataclass import dataclass

from app.core.history import Message
from app.core.tools.text import plural

# Parts smaller than this are not worth cutting: the marker alone is a tenth of it.
MIN_CUT_CHARS = 2_000
# What is always kept of a part: enough of its head and tail to know what it was.
KEEP_CHARS = 1_000
CHARS_PER_TOKEN = 4
MAX_ROUNDS = 200
HEAD_SHARE = 0.75
CUT_MARKER = (
    "[… {cut:,} characters cut from the middle of this {what} to fit the model's context window. "
    "The session record keeps all of it; ask for the part you need.]"
)


@dataclass
class Shrunk:
    """The conversation after its largest parts were cut to head and tail, and what each cut took."""

    messages: list[Message]
    # (message index, chars before, chars after) for every part that was cut.
    cuts: list[tuple[int, int, int]] = field(default_factory=list)
    tokens: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.cuts)

    def describe(self) -> str:
        saved = sum(before - after for _, before, after in self.cuts)
        return f"cut {plural(len(self.cuts), 'large part')} to their head and tail ({saved:,} characters)"


def cuttable(message: Message) -> bool:
    """Tool results and what a person pasted; never a summary or a reminder the program wrote."""
    if len(message.content) <= MIN_CUT_CHARS:
        return False
    if message.role == "tool":
        return True
    text = message.content.lstrip()
    return message.role == "user" and not text.startswith(("<system-reminder>", "<state_snapshot>"))


def shrink_largest(messages: list[Message], measure: Callable[[list[Message]], int], target: int) -> Shrunk:
    """Cut parts (oldest first) until ``measure(messages) <= target`` or nothing is left to cut."""
    out = list(messages)
    size = measure(out)
    cuts: dict[int, tuple[int, int]] = {}
    for _ in range(MAX_ROUNDS):
        if size <= target:
            break
        candidates = [i for i, m in enumerate(out) if cuttable(m) and len(m.content) > KEEP_CHARS + len(CUT_MARKER) + 64]
        if not candidates:
            break
        index = candidates[0]  # oldest first: the live request and the latest results go last
        content = out[index].content
        excess = (size - target) * CHARS_PER_TOKEN + 256
        keep = max(KEEP_CHARS, len(content) - excess)
        out[index] = cut_message(out[index], keep)
        before = cuts.get(index, (len(content), 0))[0]
        cuts[index] = (before, len(out[index].content))
        size = measure(out)
    return Shrunk(out, [(i, b, a) for i, (b, a) in sorted(cuts.items())], size)


def cut_message(message: Message, keep: int) -> Message:
    """A copy holding about ``keep`` chars of the content: its head and tail, cut at line breaks where near."""
    content = message.content
    what = "tool result" if message.role == "tool" else "message"
    head = _line_end(content, int(keep * HEAD_SHARE))
    tail_start = _line_start(content, len(content) - (keep - head))
    cut = tail_start - head
    if cut <= 0:
        return message
    marker = CUT_MARKER.format(cut=cut, what=what)
    return replace(message, content=f"{content[:head].rstrip(chr(10))}\n\n{marker}\n\n{content[tail_start:]}")


def _line_end(text: str, at: int) -> int:
    """``at``, moved back to just after a line break when one is within the last fifth."""
    newline = text.rfind("\n", int(at * 0.8), at)
    return newline + 1 if newline != -1 else at


def _line_start(text: str, at: int) -> int:
    newline = text.find("\n", at, at + max(64, (len(text) - at) // 5))
    return newline + 1 if newline != -1 else at
