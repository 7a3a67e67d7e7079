"""Leaving out memories about how to call a tool that was just used.

The live tool definition says how to call a tool; a remembered note about it
can only be staler. A memory is left out when it names a recently used tool,
reads like usage instructions, and holds nothing durable that the definition
cannot say: where a credential lives, who owns a system, a known pitfall.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from app.context.memory.entry import MemoryEntry
from app.context.memory.terms import normalize_text

ACTIVE_TOOL_USAGE_MARKERS: tuple[str, ...] = (
    "usage",
    "how to call",
    "how to use",
    "call it with",
    "invoke",
    "invocation",
    "parameter",
    "argument",
    "flag",
    "option",
    "syntax",
    "schema",
    "signature",
    "example call",
    "returns",
    "input format",
)
DURABLE_TOOL_MEMORY_MARKERS: tuple[str, ...] = (
    "credential",
    "api key",
    "token",
    "password",
    "secret",
    "owner",
    "owned by",
    "maintained by",
    "pitfall",
    "gotcha",
    "known issue",
    "rate limit",
    "quota",
)


def tool_aliases(tool_name: str) -> set[str]:
    """The names a memory might use for a tool: the whole name, the part after the last
    ``::``, and for ``mcp__server__tool`` the tool part (and its last ``__`` piece)."""
    name = tool_name.strip().lower()
    if not name:
        return set()
    aliases = {name, name.rsplit("::", 1)[-1]}
    parts = name.split("__")
    if parts[0] == "mcp" and len(parts) >= 3:
        aliases.add("__".join(parts[2:]))
        aliases.add(parts[-1])
    return {alias for alias in aliases if alias}


def filter_active_tool_memories(entries: Sequence[MemoryEntry], recent_tools: Iterable[str]) -> list[MemoryEntry]:
    aliases = set().union(*(tool_aliases(name) for name in recent_tools)) if recent_tools else set()
    if not aliases:
        return list(entries)
    # Whole-name matches only: the tool "edit" must not catch "credit" or "edited".
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True)) + r")(?![\w])")
    return [entry for entry in entries if not is_active_tool_usage_memory(entry, pattern)]


def is_active_tool_usage_memory(entry: MemoryEntry, alias_pattern: re.Pattern[str]) -> bool:
    text = normalize_text(f"{entry.title}\n{entry.description}\n{entry.body}")
    if alias_pattern.search(text) is None:
        return False
    if not any(marker in text for marker in ACTIVE_TOOL_USAGE_MARKERS):
        return False
    return not any(marker in text for marker in DURABLE_TOOL_MEMORY_MARKERS)
