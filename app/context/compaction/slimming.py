"""What is too big to send as it is: images for the summarizer, and single oversized messages.

The summarizer reads text: each image in its input becomes ``[image: <mime>]``
(the history keeps the images; the last few are restored after the summary).
Images returned by tool calls pile up fast (a screenshot per step), so their
count starts a compaction on its own, below the token threshold.

One message can be larger than the whole window (a pasted log, a huge file, or the
arguments of a call that wrote one). No compaction can help, since the live request is
kept verbatim, so every later request would be refused. The view sent to the model keeps
its head and tail instead, and says so; the history and the record keep every character.
"""

from __future__ import annotations

import json
from dataclasses import replace

from app.core.history import Message, ToolCall

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
    if limit <= 0 or all(not _too_big(m, limit) for m in messages):
        return messages
    return [_cut_calls(_cut(m, limit) if len(m.content) > limit else m, limit) for m in messages]


def _too_big(message: Message, limit: int) -> bool:
    return len(message.content) > limit or any(len(call.arguments) > limit for call in message.tool_calls or ())


def _cut_calls(message: Message, limit: int) -> Message:
    """A call whose arguments alone are past the limit (a write of a huge file) keeps valid JSON arguments
    with each long string cut to its head and tail."""
    calls = message.tool_calls or []
    if all(len(call.arguments) <= limit for call in calls):
        return message
    return replace(message, tool_calls=[_cut_arguments(call, limit) if len(call.arguments) > limit else call for call in calls])


def _cut_arguments(call: ToolCall, limit: int) -> ToolCall:
    try:
        args = json.loads(call.arguments)
    except ValueError:
        args = None
    if not isinstance(args, dict):
        marker = OVERSIZE_MARKER.format(cut=len(call.arguments))
        return replace(call, arguments=json.dumps({"arguments_cut": marker}))
    budget = max(64, limit // max(1, len(args)))
    cut = {key: _cut_text(value, budget) if isinstance(value, str) and len(value) > budget else value for key, value in args.items()}
    return replace(call, arguments=json.dumps(cut, ensure_ascii=False))


def _cut_text(text: str, limit: int) -> str:
    budget = max(0, limit - len(OVERSIZE_MARKER) - 32)
    head, tail = budget * 3 // 4, budget // 4
    kept = f"{text[:head]}\n\n{OVERSIZE_MARKER.format(cut=len(text) - head - tail)}\n\n{text[len(text) - tail:] if tail else ''}"
    return kept


def _cut(message: Message, limit: int) -> Message:
    return replace(message, content=_cut_text(message.content, limit))
