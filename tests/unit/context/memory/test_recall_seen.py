"""What the gauge reads back from a request: the current turn's recalled memories and their path."""

from __future__ import annotations

from pathlib import Path

from app.context.memory.prompt import recall_in_request, recall_reminder
from app.core.request import MESSAGES, AssembledRequest, RequestPart
from app.context.memory.scan import read_entry
from app.context.memory.paths import MemoryScope
from tests.unit.memory_support import memory_text, put


def _request(*messages: tuple[str, str]) -> AssembledRequest:
    parts = [RequestPart(block=MESSAGES, kind=kind, name=kind, source=f"message {i + 1}", text=text, message_index=i) for i, (kind, text) in enumerate(messages)]
    return AssembledRequest(model="m", context_window=1000, parts=parts, messages=[], tools=[])


def test_only_the_current_turns_recall_counts_and_both_paths_are_named(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    db = read_entry(root, MemoryScope.PROJECT, put(root, "feedback/db.md", memory_text("real db", "never mock it", "feedback")))
    tabs = read_entry(root, MemoryScope.PROJECT, put(root, "user/tabs.md", memory_text("tabs", "tabs over spaces", "user")))
    old = recall_reminder([db], 0.0, how="heuristic")
    both = recall_reminder([db, tabs], 0.0, how="heuristic+model")
    assert "Recalled by keyword ranking (BM25F) and the memory selector model." in both
    seen = recall_in_request(_request(("user", "q1"), ("recalled_memory", old), ("assistant", "a"), ("user", "q2"), ("recalled_memory", both)))
    assert seen.memories == (("real db", "feedback/db.md"), ("tabs", "user/tabs.md"))
    assert seen.paths == ("heuristic", "model")
    # A turn that recalled nothing shows nothing, whatever earlier turns carried.
    assert recall_in_request(_request(("user", "q1"), ("recalled_memory", old), ("user", "q2"))).memories == ()
