"""Choosing among recall candidates beyond their ranking: the model-based selector, and the tool-usage filter.

The model-based recall selector (``build_selector_request``): the request it sends and how its answer is checked.

The model sees headers only (a short id, type, date changed, description), never
bodies: cheap, and a stored body cannot steer the choice. Each candidate is
named by a short id (``m1``, ``m2``...) rather than its path: absolute paths
spent a third of the 25 KB manifest (132 of 200 candidates fitted), and ids
also keep two scopes' ``user/role.md`` apart.

Leaving out memories about how to call a tool that was just used (``filter_active_tool_memories``).

The live tool definition says how to call a tool; a remembered note about it
can only be staler. A memory is left out when it names a recently used tool,
reads like usage instructions, and holds nothing durable that the definition
cannot say: where a credential lives, who owns a system, a known pitfall.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from app.dataclass import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any

from app.context.memory.entry import MemoryEntry
from app.context.memory.terms import normalize_text
from app.context.memory.textunits import utf16_prefix
from app.templates import package_template

RECALL_SELECTOR_PURPOSE = "auto-memory-recall"
RECALL_SELECTOR_TIMEOUT_SECONDS = 30.0
MAX_MODEL_CANDIDATE_DOCS = 200
RECENT_MODEL_CANDIDATE_RESERVE = 20
MAX_MODEL_MANIFEST_BYTES = 25_000  # UTF-8
MAX_MANIFEST_DESCRIPTION_CHARS = 512

SELECTOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"selected_memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["selected_memories"],
    "additionalProperties": False,
}


class RecallSelectorError(ValueError):
    """The selector's answer is unusable (recall then falls back to the heuristic)."""


@dataclass(frozen=True)
class SelectorRequest:
    """The recall selector's side query, ready to send, with the memories its short ids stand for."""

    system: str
    prompt: str
    schema: dict[str, Any]
    candidates: dict[str, MemoryEntry]  # short id -> entry, for the ones in the manifest
    temperature: float = 0.0


def model_candidates(ranked: Sequence[MemoryEntry], keep: Callable[[MemoryEntry], bool] | None = None) -> list[MemoryEntry]:
    """Up to 200 memories for the manifest: the 20 most recently changed whatever their
    score (a fresh memory may use words the query does not), then the best ranked. With
    ``keep``, only memories it accepts, asked of as few as it takes: the same choice as filtering
    all first, without a secret scan of 50,000 headers (1.5 s) for a manifest of 200."""
    accepted = (lambda entries: entries) if keep is None else (lambda entries: filter(keep, entries))
    recent = list(islice(accepted(sorted(ranked, key=lambda e: -e.mtime)), RECENT_MODEL_CANDIDATE_RESERVE))
    chosen = {id(e) for e in recent}
    rest = islice(accepted(e for e in ranked if id(e) not in chosen), MAX_MODEL_CANDIDATE_DOCS - len(recent))
    return recent + list(rest)


def manifest_line(entry: MemoryEntry, short_id: str) -> str:
    """``- <id> [<type>] (<date changed>): <title> — <description>``; no ``: …`` without either."""
    # The state files' date form; schedule.py is loaded only when the selector runs (a plain turn skips it).
    from app.context.memory.schedule import iso_utc

    kind = entry.type.value if entry.type else "unknown"
    line = f"- {short_id} [{kind}] ({iso_utc(entry.mtime)[:10]})"
    title = " ".join(entry.title.split())
    description = utf16_prefix(" ".join(entry.description.split()), MAX_MANIFEST_DESCRIPTION_CHARS)
    text = f"{title} \u2014 {description}" if title and description else title or description
    return f"{line}: {text}" if text else line


def build_manifest(candidates: Sequence[MemoryEntry]) -> tuple[str, list[tuple[str, MemoryEntry]]]:
    """The manifest within 25,000 UTF-8 bytes and the (id, entry) pairs it lists. A line
    that would not fit is skipped and the rest still tried, so one long description
    does not hide every memory after it."""
    lines: list[str] = []
    listed: list[tuple[str, MemoryEntry]] = []
    size = 0
    for entry in candidates:
        short_id = f"m{len(listed) + 1}"
        line = manifest_line(entry, short_id)
        cost = len(line.encode("utf-8", "surrogatepass")) + (1 if lines else 0)
        if size + cost > MAX_MODEL_MANIFEST_BYTES:
            continue
        lines.append(line)
        listed.append((short_id, entry))
        size += cost
    return "\n".join(lines), listed


def selector_prompt(query: str, manifest: str, recent_tools: Sequence[str] = ()) -> str:
    text = f"Query: {query.strip()}\n\nAvailable memories:\n{manifest}"
    if recent_tools:
        text += f"\n\nRecently used tools: {', '.join(recent_tools)}"
    return text


def build_selector_request(
    query: str, ranked: Sequence[MemoryEntry], recent_tools: Sequence[str] = (), keep: Callable[[MemoryEntry], bool] | None = None
) -> SelectorRequest:
    manifest, listed = build_manifest(model_candidates(ranked, keep))
    return SelectorRequest(
        system=selector_system_prompt(),
        prompt=selector_prompt(query, manifest, recent_tools),
        schema=SELECTOR_SCHEMA,
        candidates=dict(listed),
    )


def parse_selection(answer: Any, request: SelectorRequest, limit: int) -> list[MemoryEntry]:
    """The chosen entries in the model's order. Raises RecallSelectorError."""
    selected = answer.get("selected_memories") if isinstance(answer, dict) else None
    if not isinstance(selected, list) or not all(isinstance(item, str) for item in selected):
        raise RecallSelectorError("Recall selector must return selected_memories array")
    ids = list(dict.fromkeys(item.strip() for item in selected))
    if len(ids) > limit:
        raise RecallSelectorError(f"Recall selector returned too many documents: {len(ids)}")
    if any(short_id not in request.candidates for short_id in ids):
        raise RecallSelectorError("Recall selector returned an unknown memory id")
    return [request.candidates[short_id] for short_id in ids]


@lru_cache(maxsize=1)
def selector_system_prompt() -> str:
    return package_template("app.context.memory", "recall_selector").strip()

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
