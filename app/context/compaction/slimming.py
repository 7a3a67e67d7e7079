"""Images and compaction (spec: image trigger and input slimming).

The summarizer reads text: each image in its input becomes ``[image: <mime>]``
(the history keeps the images; the last few are restored after the summary).
Images returned by tool calls pile up fast (a screenshot per step), so their
count starts a compaction on its own, below the token threshold.
"""

from __future__ import annotations

from dataclasses import replace

from app.core.history import Message


def without_images(messages: list[Message]) -> list[Message]:
    """Copies of ``messages`` with every image replaced by its placeholder in the text."""
    return [replace(m, content=m.text_with_placeholders(), images=[]) if m.images else m for m in messages]


def tool_image_count(messages: list[Message]) -> int:
    """Images inside tool results (images a person pasted do not count toward the trigger)."""
    return sum(len(m.images) for m in messages if m.role == "tool")
