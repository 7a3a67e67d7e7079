"""Searching a project's sessions for words: title, first prompt, then what was said.

Files are streamed a line at a time, newest session first, and each hit is
yielded as soon as it is found, so a caller (the picker's worker thread, the
CLI) can show results while the rest is still being read, and stop at any time.
Only the dialog is searched (the person's prompts and the model's answers), not
tool output: a file read would otherwise make every session match its code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from app.dataclass import dataclass
from pathlib import Path

from app.core.session.listing import SessionSummary, session_files, summarize

SNIPPET_CHARS = 90
# How often a long file checks whether the caller has given up.
_STOP_CHECK_LINES = 64
_SEARCHED_ROLES = ("user", "assistant")


@dataclass
class SearchHit:
    """A session that matches a search: where the words were found, and a snippet around them."""

    summary: SessionSummary
    where: str  # "title" | "first prompt" | "message"
    snippet: str


def search_sessions(chats_dir: Path, query: str, *, stop: Callable[[], bool] = lambda: False) -> Iterator[SearchHit]:
    """Sessions whose title, first prompt or dialog contains ``query`` (case-insensitive), newest first."""
    needle = " ".join(query.split()).lower()
    if not needle:
        return
    matcher = _LineMatcher(needle)
    for item in session_files(chats_dir):
        if stop():
            return
        try:
            summary = summarize(item)
            hit = _hit_in_summary(summary, needle) or _hit_in_dialog(summary, matcher, stop)
        except OSError:
            continue  # deleted or unreadable while we looked
        if hit is not None:
            yield hit


def _hit_in_summary(summary: SessionSummary, needle: str) -> SearchHit | None:
    for where, text in (("title", summary.title or ""), ("first prompt", summary.first_prompt)):
        if needle in text.lower():
            return SearchHit(summary, where, snippet_around(text, needle))
    return None


def _hit_in_dialog(summary: SessionSummary, matcher: _LineMatcher, stop: Callable[[], bool]) -> SearchHit | None:
    with summary.path.open("rb") as handle:
        for count, raw in enumerate(handle, 1):
            if count % _STOP_CHECK_LINES == 0 and stop():
                return None
            text = matcher.dialog_text_containing(raw)
            if text is not None:
                return SearchHit(summary, "message", snippet_around(text, matcher.needle))
    return None


class _LineMatcher:
    """Finds the needle in a record line without parsing every line.

    JSON escapes each character on its own, so the escaped needle occurs in the
    raw line wherever the needle occurs in the decoded text; only lines that pass
    this cheap test are parsed and checked for real.
    """

    def __init__(self, needle: str) -> None:
        self.needle = needle
        escaped = json.dumps(needle, ensure_ascii=False)[1:-1]
        # An ASCII needle can be looked for in the raw bytes, lowercased bytewise.
        self._ascii = escaped.encode("utf-8") if escaped.isascii() else None
        self._escaped = escaped

    def dialog_text_containing(self, raw: bytes) -> str | None:
        if self._ascii is not None:
            if self._ascii not in raw.lower():
                return None
        elif self._escaped not in raw.decode("utf-8", errors="replace").lower():
            return None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        message = data.get("message") if isinstance(data, dict) else None
        if not isinstance(message, dict) or message.get("role") not in _SEARCHED_ROLES:
            return None
        content = message.get("content")
        if isinstance(content, str) and self.needle in content.lower():
            return content
        return None


def snippet_around(text: str, needle: str, width: int = SNIPPET_CHARS) -> str:
    """One line of ``text`` around the first occurrence of ``needle``."""
    index = text.lower().find(needle)
    if index < 0:
        index = 0
    start = max(0, index - width // 3)
    piece = text[start : start + width + len(needle)]
    flat = " ".join(piece.split())
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width + len(needle) < len(text) else ""
    return f"{prefix}{flat}{suffix}"
