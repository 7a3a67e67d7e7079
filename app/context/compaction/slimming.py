"""What is too big to send as it is: images for the summarizer, and single oversized messages.

The summarizer reads text: each image in its input becomes ``[image: <mime>]``
(the history keeps the images; the last few are restored after the summary).
Images returned by tool calls pile up fast (a screenshot per step), so their
count starts a compaction on its own, below the token threshold.

One message can be larger than the whole window (a pasted log, a huge file). No
compaction can help, since the live request is kept verbatim, so every later request
would be refused. The view sent to the model keeps its head and tail instead, and
says so; the history and the record keep every character.
"""

from __future__ import annotations

from dataclasses import replace

from app.core.history import Message

# One message may take at most this share of the window in what is sent (chars: 4 a token).
MAX_MESSAGE_SHARE = 0.5
OVERSIZE_MARKER = (
    "[… {cut:,} characters cut from the middle of this message: it alone was larger than half of the context "
    "window. The session record keeps all of it; ask for the part you need.]"
)


def without_images(messages: list[Message]) -> list[Message]:
    """Copies of ``messages`` with every image replaced by its placeholder in the text."""
    return [replace(m, content=m.text_with_placeholders(), images=[]) if m.images else m for m in messages]


def tool_image_count(messages: list[Message]) -> int:
    """Images inside tool results (images a person pasted do not count toward the trigger)."""
    return sum(len(m.images) for m in messages if m.role == "tool")


def cap_oversized(messages: list[Message], context_window: int) -> list[Message]:
    """Copies of the messages too large for the window, each cut to its head and tail with a marker."""
    limit = int(context_window * 4 * MAX_MESSAGE_SHARE)
    if limit <= 0 or all(len(m.content) <= limit for m in messages):
        return messages
    return [_cut(m, limit) if len(m.content) > limit else m for m in messages]


def _cut(message: Message, limit: int) -> Message:
    content = message.content
    budget = max(0, limit - len(OVERSIZE_MARKER) - 32)
    head, tail = budget * 3 // 4, budget // 4
    cut = len(content) - head - tail
    kept = f"{content[:head]}\n\n{OVERSIZE_MARKER.format(cut=cut)}\n\n{content[len(content) - tail:] if tail else ''}"
    return replace(message, content=kept)
