"""The history after a summary: roles alternate, the live request stays verbatim (spec: post-compact history)."""

from __future__ import annotations

from app.core.history import Message
from app.core.images import ImagePart

# After the summary (kept here, not with the summarizer: every request checks the live tail,
# and the summarizer's module loads only when a summary is asked for).
RESUME_TRAILER = (
    "Resume the prior task using the summary above. Continue from the last in-flight step; "
    "do not acknowledge the summary, do not re-introduce, do not greet the user again."
)
ACKNOWLEDGEMENT = "Got it. Thanks for the additional context!"
ATTACHMENTS_ACK = "Noted. I have the restored files and instructions."
SUMMARY_UNAVAILABLE = "[Summary unavailable]"


def live_tail_start(history: list[Message]) -> int:
    """Where the kept tail starts: the user request of a turn still in flight, else the end.

    A turn is finished when the last message is an assistant answer without tool
    calls; then everything can be summarized. Otherwise the tail starts at the last
    real user message (not a reminder), so that request is kept word for word and
    no tool call is separated from its result.
    """
    if not history:
        return 0
    last = history[-1]
    if last.role == "assistant" and not last.tool_calls:
        return len(history)
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "user" and not message.content.lstrip().startswith("<"):
            return index
    return len(history)


def shrink_tail(history: list[Message], start: int, fits) -> int:  # type: ignore[no-untyped-def]
    """A tail too large to keep whole keeps the live request and the latest tool round only.

    Returns the index from which the tail's second part starts (== len(history) when
    only the request is kept); ``fits(messages)`` says whether a candidate tail is small enough.
    """
    tail = history[start:]
    if fits(tail):
        return start
    for index in range(len(history) - 1, start, -1):
        if history[index].role == "assistant":
            return index
    return len(history)


def compose_history(
    summary: str, tail: list[Message], attachments_text: str = "", images: list[ImagePart] | None = None, pinned: list[Message] | None = None
) -> list[Message]:
    """Summary, acknowledgement, re-attached files, the parts the person pinned (verbatim), then the kept tail."""
    messages = [
        Message.user(f"{summary.strip() or SUMMARY_UNAVAILABLE}\n\n{RESUME_TRAILER}"),
        Message(role="assistant", content=ACKNOWLEDGEMENT),
    ]
    if attachments_text:
        messages += [Message.user(attachments_text, images), Message(role="assistant", content=ATTACHMENTS_ACK)]
    return messages + list(pinned or []) + list(tail)
