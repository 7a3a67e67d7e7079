"""The start of a session file: its first prompt and when it began.

Listing many sessions must stay fast even when records are 100 MB, so this
reads a bounded number of bytes from the top and never a whole file.
"""

from __future__ import annotations

import json
import re
from app.dataclass import dataclass
from datetime import datetime
from json.decoder import scanstring
from pathlib import Path
from typing import Any, BinaryIO

from app.core.session.preview import PREVIEW_CHARS, one_line_preview
from app.core.session.records import parse_timestamp

# A line longer than this is only looked at through its first bytes.
HEAD_LINE_LIMIT = 256 * 1024
# Stop looking for the first prompt after this many bytes or lines.
HEAD_BYTE_BUDGET = 4 * 1024 * 1024
HEAD_MAX_LINES = 200

# Kept as text: ``re`` compiles each on first use (and caches it), which keeps the work off start-up.
_TYPE = r'"type"\s*:\s*"([a-z_]+)"'
_TIMESTAMP = r'"timestamp"\s*:\s*"([^"]+)"'
_CONTENT = r'"content"\s*:\s*"'


@dataclass
class SessionHead:
    """What the top of a session file says: the first prompt, when the session began, and its git branch."""

    first_prompt: str = ""
    started_at: datetime | None = None
    git_branch: str | None = None


@dataclass
class _LineFacts:
    """The few fields the head reader wants from one record line (None where the line does not say)."""

    type: str | None = None
    timestamp: str | None = None
    content: str | None = None
    git_branch: str | None = None


def read_head(path: Path) -> SessionHead:
    """First user prompt (one line, capped) and first timestamp, from the top of the file."""
    head = SessionHead()
    budget = HEAD_BYTE_BUDGET
    with path.open("rb") as handle:
        for _ in range(HEAD_MAX_LINES):
            raw = handle.readline(HEAD_LINE_LIMIT)
            if not raw:
                break
            budget -= len(raw)
            whole = raw.endswith(b"\n") or len(raw) < HEAD_LINE_LIMIT
            facts = _facts_of_whole_line(raw) if whole else _facts_of_line_start(raw)
            if head.started_at is None:
                head.started_at = parse_timestamp(facts.timestamp)
            head.git_branch = head.git_branch or facts.git_branch
            if facts.type == "user" and facts.content and facts.content.strip():
                head.first_prompt = one_line_preview(facts.content)
                break
            if not whole:
                budget -= _skip_rest_of_line(handle, budget)
            if budget <= 0:
                break
    return head


def _facts_of_whole_line(raw: bytes) -> _LineFacts:
    """What a complete line says, or nothing if it is not a readable record."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return _LineFacts()
    if not isinstance(data, dict):
        return _LineFacts()
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return _LineFacts(
        type=_str_or_none(data.get("type")),
        timestamp=_str_or_none(data.get("timestamp")),
        content=_str_or_none(content),
        git_branch=_str_or_none(data.get("gitBranch")),
    )


def _facts_of_line_start(raw: bytes) -> _LineFacts:
    """Best effort on the first bytes of a huge line.

    The recorder writes the small metadata before the message, so the type and
    timestamp are near the start; the prompt is decoded as far as it goes.
    """
    text = raw.decode("utf-8", errors="ignore")
    type_match = re.search(_TYPE, text)
    stamp_match = re.search(_TIMESTAMP, text)
    content_match = re.search(_CONTENT, text)
    return _LineFacts(
        type=type_match.group(1) if type_match else None,
        timestamp=stamp_match.group(1) if stamp_match else None,
        content=_partial_json_string(text, content_match.end()) if content_match else None,
    )


def _partial_json_string(text: str, start: int) -> str | None:
    """The beginning of a JSON string literal that starts at ``start`` and may be cut off."""
    chunk = text[start : start + PREVIEW_CHARS * 8]
    # The cut may fall inside an escape such as \u00e9; dropping a few
    # characters from the end always reaches a point where the literal decodes.
    for trim in range(8):
        candidate = chunk[: len(chunk) - trim] + '"'
        try:
            return scanstring(candidate, 0, False)[0]  # strict=False: raw control chars allowed
        except ValueError:
            continue
    return None


def _skip_rest_of_line(handle: BinaryIO, budget: int) -> int:
    """Read past the rest of the current line, up to ``budget`` bytes; returns bytes read."""
    read = 0
    while read < budget:
        chunk = handle.readline(HEAD_LINE_LIMIT)
        read += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            break
    return read


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
