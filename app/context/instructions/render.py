"""How instruction text is wrapped for the prompt (Qwen Code's concatenate_instructions).

Each file is framed by ``--- Context from: PATH ---`` / ``--- End of Context from: PATH ---``. A file
that writes such a line itself could end its own frame early and have what follows read as the
program's words, so inside the frame every line that imitates either marker (any dashes or none, any
case, spaces, invisible characters or full-width letters in between) is prefixed with ``(quoted) ``,
the mark memory text gets for the same lines (app/context/untrusted.py). A file without such a line is
framed byte for byte as Qwen Code 0.24.4 frames it. Control characters in the path (a directory named
with a newline) are written as escapes, so the path cannot break the marker line either.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

BLOCK_SEPARATOR = "\n\n"
QUOTED = "(quoted) "
# After folding: leading dashes, rules and quote marks of any kind, then "[end of] context from:".
_FRAME_LIKE = re.compile(r"^[\s\W_]*(?:end\s*of\s*)?context\s*from\s*:", re.IGNORECASE)
_INVISIBLE = re.compile(r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_QUICK = re.compile(r"from", re.IGNORECASE)


def context_block(display_path: str, content: str) -> str:
    path = _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), display_path)
    return f"--- Context from: {path} ---\n{quote_frame_lines(content)}\n--- End of Context from: {path} ---"


def quote_frame_lines(content: str) -> str:
    """``content`` with each line that imitates a frame marker prefixed with ``(quoted) ``."""
    if not _QUICK.search(_fold(content)):  # nearly every file: no line can match, and nothing is split
        return content
    lines = content.split("\n")
    for index, line in enumerate(lines):
        if _FRAME_LIKE.match(_fold(line)):
            lines[index] = QUOTED + line
    return "\n".join(lines)


def _fold(text: str) -> str:
    """What a reader (or a model) sees: compatibility forms folded (full-width letters), invisibles gone."""
    if text.isascii():
        return text
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def join_blocks(blocks: Iterable[str]) -> str:
    return BLOCK_SEPARATOR.join(blocks)
