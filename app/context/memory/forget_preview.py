"""What a confirmed forget will do to each file: delete it, or take some of its entries out.

The person confirms exactly this, so it follows apply_forget's own rule: a file
loses only the chosen bullets while others remain, and goes whole otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.context.memory.body_entries import bullet_entries
from app.context.memory.entry import MemoryEntry
from app.context.memory.forget import ForgetCandidate


@dataclass(frozen=True)
class ForgetPreviewItem:
    entry: MemoryEntry
    whole_file: bool
    removed: tuple[str, ...] = ()  # the bullets' first lines, when the file stays
    total: int = 0  # how many entries the file holds

    @property
    def path(self) -> Path:
        return self.entry.path


def forget_preview(candidates: Sequence[ForgetCandidate]) -> list[ForgetPreviewItem]:
    by_file: dict[Path, list[ForgetCandidate]] = {}
    for candidate in candidates:
        by_file.setdefault(candidate.path, []).append(candidate)
    return [_item(chosen) for chosen in by_file.values()]


def _item(chosen: list[ForgetCandidate]) -> ForgetPreviewItem:
    entry = chosen[0].entry
    if any(c.bullet is None for c in chosen) or entry.document.frontmatter_text is None:
        return ForgetPreviewItem(entry, whole_file=True)
    wanted = {c.summary.strip().lower() for c in chosen}
    bullets = bullet_entries(entry.body)
    if all(b.summary.lower() in wanted for b in bullets):
        return ForgetPreviewItem(entry, whole_file=True)
    return ForgetPreviewItem(entry, whole_file=False, removed=tuple(c.summary for c in chosen), total=len(bullets))


def describe_item(item: ForgetPreviewItem, shown_path: str) -> str:
    """``<path> — the whole file`` or ``<path> — 1 of its 3 entries (the file stays): “...”``."""
    if item.whole_file:
        return f"{shown_path} — the whole file"
    quoted = ", ".join(f"“{summary}”" for summary in item.removed)
    return f"{shown_path} — {len(item.removed)} of its {item.total} entries (the file stays): {quoted}"
