"""Recalled memories as the system reminder placed before the person's request."""

from __future__ import annotations

from collections.abc import Sequence

from app.context.memory.age import memory_age, memory_freshness_text
from app.context.memory.entry import MemoryEntry
from app.context.memory.textunits import utf16_len, utf16_prefix
from app.context.memory.untrusted import neutralise

MAX_DOC_BODY_CHARS = 1200
RELEVANT_MEMORY_HEADING = "## Relevant memory"
RELEVANT_MEMORY_INTRO = (
    "Use the following memories only when they are directly relevant to the current request. "
    "Verify file/function claims before relying on them."
)
EMPTY_BODY_TEXT = "_No detailed entries yet._"
# What an older version wrote into a memory that had nothing in it yet.
PLACEHOLDER_BODY = "_No entries yet._"
TRUNCATED_BODY_NOTE = "\n\n> NOTE: Relevant memory truncated for prompt budget."
# How the memories were chosen, said in one line so /context detail (and the record) can show it.
RECALL_PATHS = {
    "heuristic": "keyword ranking (BM25F)",
    "fused": "keyword ranking (BM25F) fused with semantic similarity",
    "model": "the memory selector model",
}
RECALLED_BY = "Recalled by "


def render_relevant_memory(entries: Sequence[MemoryEntry], now: float, how: str = "") -> str:
    """The recalled memories as Markdown; empty when there are none."""
    if not entries:
        return ""
    lines = [RELEVANT_MEMORY_HEADING, "", RELEVANT_MEMORY_INTRO, ""]
    if how:
        lines[-1:-1] = [f"{RECALLED_BY}{RECALL_PATHS.get(str(how), str(how))}."]
    for entry in entries:
        lines.extend(_render_entry(entry, now))
    return "\n".join(lines).rstrip() + "\n"


def recall_reminder(entries: Sequence[MemoryEntry], now: float, how: str = "") -> str:
    """The memories wrapped in ``<system-reminder>`` tags; empty when there are none."""
    text = render_relevant_memory(entries, now, how)
    return f"<system-reminder>\n{text.rstrip()}\n</system-reminder>" if text else ""


def prompt_body(body: str) -> str:
    """The body as shown: the empty-body text, or the body cut to 1,200 characters with a note."""
    text = body.strip()
    if not text or text == PLACEHOLDER_BODY:
        return EMPTY_BODY_TEXT
    if utf16_len(text) > MAX_DOC_BODY_CHARS:
        return utf16_prefix(text, MAX_DOC_BODY_CHARS).rstrip() + TRUNCATED_BODY_NOTE
    return text


def _render_entry(entry: MemoryEntry, now: float) -> list[str]:
    # A memory's text cannot close the reminder it sits in, nor pass for an instruction file's frame.
    title = " ".join(neutralise(entry.title).split())
    lines = [f"### {title} ({neutralise(entry.rel_path or entry.path.name)})", f"Saved {memory_age(entry.mtime, now)}."]
    if entry.description:
        lines.append(" ".join(neutralise(entry.description).split()))
    lines += ["", neutralise(prompt_body(entry.body))]
    freshness = memory_freshness_text(entry.mtime, now)
    if freshness:
        lines += ["", f"> NOTE: {freshness}"]
    lines.append("")
    return lines
