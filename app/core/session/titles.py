"""Automatic session titles: when one is wanted, what the model is shown, and its answer cleaned up."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.history import Message
from app.core.session.recap import filter_to_dialog

AUTO_TITLE_ATTEMPT_CAP = 3
TITLE_MAX_CHARS = 80
TITLE_MAX_OUTPUT_TOKENS = 60
TITLE_TEMPERATURE = 0.2
# The start of the session says what it is about; the title needs no more.
TITLE_MESSAGES = 4
TITLE_MESSAGE_CHARS = 1500

TITLE_SYSTEM_PROMPT = """\
You name coding sessions so they can be found again in a list. Given the start \
of a conversation between a person and a coding assistant, reply with a title \
of three to seven words that says what the person is working on, e.g. \
"Fix flaky parser test" or "Add dark theme toggle".

Write the title in the language the person writes in. Reply with the title \
only: no quotes, no trailing full stop, no explanation."""

# Kept as text: ``re`` compiles each on first use (and caches it), which keeps the work off start-up.
_THINK = r"(?i)<think>[\s\S]*?</think>"
_LABEL = r"(?i)^(?:session\s+)?title\s*[:：]\s*"
_WRAPPERS = "\"'`*_#“”‘’「」《》 "


def title_prompt(history: Sequence[Message]) -> str | None:
    """The conversation's opening as text for the title model, or None before a finished exchange."""
    dialog = filter_to_dialog(history)[:TITLE_MESSAGES]
    if not any(m.role == "user" for m in dialog) or not any(m.role == "assistant" for m in dialog):
        return None
    lines = []
    for message in dialog:
        text = message.content
        if len(text) > TITLE_MESSAGE_CHARS:
            text = text[:TITLE_MESSAGE_CHARS] + " …"
        who = "Person" if message.role == "user" else "Assistant"
        lines.append(f"{who}: {text}")
    return "\n\n".join(lines) + "\n\nThe title:"


# Markdown a model puts around a title: a heading mark, emphasis, code ticks, a link's target.
# Patterns as text, compiled on first use (re's cache): nothing is compiled at start-up.
_HEADING = r"^#{1,6}\s+"
_LINK = r"\[([^\]]*)\]\([^)]*\)"
_EMPHASIS = r"(\*\*|__|\*|`+|~~)(.+?)\1"


def _plain(line: str) -> str:
    line = re.sub(_HEADING, "", line)
    line = re.sub(_LINK, r"\1", line)
    previous = None
    while previous != line:  # "**`x`**" takes two passes
        previous, line = line, re.sub(_EMPHASIS, r"\2", line)
    return line


def clean_title(answer: str) -> str:
    """The first line of the answer as a title: no thinking, label, Markdown, quotes or final stop; capped."""
    text = re.sub(_THINK, "", answer)
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    line = re.sub(_LABEL, "", _plain(line)).strip(_WRAPPERS)
    line = " ".join(line.split()).rstrip(".。").strip(_WRAPPERS)
    if len(line) > TITLE_MAX_CHARS:
        cut = line[: TITLE_MAX_CHARS - 1]
        if " " in cut:
            cut = cut[: cut.rindex(" ")]
        line = cut.rstrip() + "…"
    return line


def manual_title(text: str) -> str:
    """What the person typed after /rename, as one line."""
    title = " ".join(text.split())
    return title if len(title) <= TITLE_MAX_CHARS * 2 else title[: TITLE_MAX_CHARS * 2 - 1] + "…"
