"""The summary quality check (OpenClaw's safeguard): what the user said last must survive.

Exact identifiers (paths, names with digits or underscores, backticked text, URLs,
hashes) from the recent user messages must appear verbatim in the summary; if any
is missing the summarizer gets one corrective retry.
"""

from __future__ import annotations

import re

from app.core.history import Message

RECENT_USER_MESSAGES = 3
MAX_IDENTIFIERS = 40
_PATTERNS = [
    re.compile(r"`([^`\n]{2,120})`"),  # backticked text
    re.compile(r"https?://[^\s)>\]]+"),  # URLs
    re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+"),  # paths with a slash
    re.compile(r"\b[\w-]+\.(?:py|ts|tsx|js|jsx|md|json|yaml|yml|toml|rs|go|java|c|h|cpp|css|html|sh|txt)\b"),  # file names
    re.compile(r"\b[0-9a-f]{7,40}\b"),  # hashes
    re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b"),  # snake_case
    re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b"),  # camelCase
    re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b"),  # PascalCase
]


def identifiers_in(text: str) -> list[str]:
    found: list[str] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            value = (match.group(1) if match.groups() else match.group(0)).strip().rstrip(".,;:")
            if len(value) >= 3 and value not in found:
                found.append(value)
    return found[:MAX_IDENTIFIERS]


def recent_identifiers(history: list[Message], count: int = RECENT_USER_MESSAGES) -> list[str]:
    users = [m.content for m in history if m.role == "user" and not m.content.lstrip().startswith("<")]
    found: list[str] = []
    for text in users[-count:]:
        for value in identifiers_in(text):
            if value not in found:
                found.append(value)
    return found[:MAX_IDENTIFIERS]


def missing_identifiers(summary: str, identifiers: list[str]) -> list[str]:
    return [value for value in identifiers if value not in summary]


REQUIRED_SECTIONS = ("all_user_messages", "pending_tasks", "current_work", "next_step")


def missing_sections(summary: str) -> list[str]:
    """Sections of the state snapshot that carry what the user still wants; each must be there."""
    return [name for name in REQUIRED_SECTIONS if f"<{name}>" not in summary]
