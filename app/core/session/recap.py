"""A "where you left off" recap of a session: which messages go in, the prompt, the answer's text.

Only the dialog goes to the model: a tool result can be a 10K-token file dump
that would drown the recap, and thinking or ``<system-reminder>`` blocks are not
something the person said or saw. The slice starts at a user message so the
model never begins with an answer to a question it cannot see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.history import Message

RECENT_MESSAGE_WINDOW = 30
RECAP_MAX_OUTPUT_TOKENS = 300
RECAP_TEMPERATURE = 0.3
# A resumed session whose last record is older than this gets a recap by itself.
RECAP_AFTER_IDLE_SECONDS = 5 * 60

RECAP_FINAL_PROMPT = "Generate the recap now. Wrap it in <recap>...</recap>. Nothing outside the tags."
NOT_ENOUGH_CONTEXT = "Not enough conversation context for a recap yet."
RECAP_BUSY = "Cannot run /recap while another operation is in progress."

RECAP_SYSTEM_PROMPT = """\
You are helping someone pick up a coding session again after a break. Read the \
conversation so far and tell them, in one to three short sentences, where they \
left off: what they were working on, what was last done or decided, and what \
comes next if that is clear. Speak to them directly ("you"), plainly, without a \
heading, list or preamble. Do not invent progress the conversation does not show.

Write in the language the conversation is held in: if the person wrote in \
Chinese, answer in Chinese; if in English, in English.

Put the recap between <recap> and </recap> and write nothing outside those tags."""

_SYSTEM_REMINDER = re.compile(r"<system-reminder>[\s\S]*?</system-reminder>", re.I)
_RECAP = re.compile(r"<recap>([\s\S]*?)</recap>", re.I)
_RECAP_OPEN = re.compile(r"<recap>", re.I)


def dialog_text(message: Message) -> str:
    """What a user or assistant message says, without ``<system-reminder>`` blocks."""
    return _SYSTEM_REMINDER.sub("", message.content).strip()


def filter_to_dialog(history: Sequence[Message]) -> list[Message]:
    """User and assistant messages that say something, as text only.

    Tool calls, tool results, thinking (``reasoning``) and system-reminder blocks
    are dropped; an assistant message that only called tools disappears.
    """
    dialog: list[Message] = []
    for message in history:
        if message.role not in ("user", "assistant"):
            continue
        text = dialog_text(message)
        if text:
            dialog.append(Message(role=message.role, content=text))
    return dialog


def take_recent_dialog(dialog: Sequence[Message], window: int = RECENT_MESSAGE_WINDOW) -> list[Message]:
    """The last ``window`` messages, advanced to the first user message among them."""
    if len(dialog) <= window:
        return list(dialog)
    start = len(dialog) - window
    while start < len(dialog) and dialog[start].role != "user":
        start += 1
    return list(dialog[start:])


def recap_messages(history: Sequence[Message]) -> list[Message] | None:
    """The messages a recap is made from, or None when there are fewer than two."""
    recent = take_recent_dialog(filter_to_dialog(history))
    if len(recent) < 2:
        return None
    return recent


def recap_request(dialog: Sequence[Message]) -> list[Message]:
    """The side query's messages: the dialog, then the final instruction."""
    return [*dialog, Message.user(RECAP_FINAL_PROMPT)]


def extract_recap(text: str) -> str:
    """The text inside <recap>…</recap>; else everything after an unclosed <recap>; else ''."""
    match = _RECAP.search(text)
    if match:
        return match.group(1).strip()
    opened = _RECAP_OPEN.search(text)
    if opened:
        return text[opened.end() :].strip()
    return ""
