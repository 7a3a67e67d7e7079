"""Micro-compaction: clear old tool results with rules alone, no model call (spec: microcompact).

Triggers by priority: ``force`` (/compress-fast), ``idle`` (no answer for a long
time: the provider's prompt cache is cold anyway) and ``size`` (too much tool
output in the window). Errors are never cleared, nor the newest results of each kind.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import field
from app.dataclass import dataclass

from app.core.history import Message
from app.core.images import IMAGE_TOKEN_ESTIMATE

CLEARED = "[Old tool result content cleared]"
COMPACTABLE_TOOLS = frozenset(
    {"read_file", "run_shell_command", "grep_search", "glob", "web_fetch", "web_search", "read_mcp_resource", "edit", "write_file", "skill", "search_memory"}
)
DEFAULT_KEEP = 5
DEFAULT_IDLE_MINUTES = 60.0
DEFAULT_SIZE_CHARS = 500_000


@dataclass
class MicroSettings:
    """How eager micro-compaction is: the results it always keeps, and its idle and size triggers."""

    keep_recent: int = DEFAULT_KEEP
    idle_minutes: float = DEFAULT_IDLE_MINUTES  # < 0 disables the idle trigger
    size_chars: int = DEFAULT_SIZE_CHARS  # < 0 disables the size trigger

    @property
    def keep(self) -> int:
        return max(1, self.keep_recent)


@dataclass
class MicroResult:
    """What one micro-compaction did: the history it left, what set it off and which results it cleared."""

    messages: list[Message]
    trigger: str | None = None
    cleared_ids: list[str] = field(default_factory=list)
    kept: int = 0
    tokens_saved: int = 0
    gap_minutes: int | None = None
    evicted_read_paths: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.cleared_ids)

    def record_payload(self) -> dict:
        """The session record's micro_compaction entry."""
        return {"clearedToolCallIds": self.cleared_ids, "placeholder": CLEARED, "trigger": self.trigger, "tokensSaved": self.tokens_saved}


def choose_trigger(messages: list[Message], settings: MicroSettings, *, force: bool, now: float, last_response_at: float | None) -> str | None:
    if force:
        return "force"
    if settings.idle_minutes >= 0 and last_response_at is not None and not math.isnan(last_response_at):
        if now - last_response_at >= settings.idle_minutes * 60:
            return "idle"
    if settings.size_chars >= 0 and _compactable_chars(messages) > settings.size_chars:
        return "size"
    return None


def micro_compact(
    messages: list[Message],
    settings: MicroSettings | None = None,
    *,
    force: bool = False,
    now: float = 0.0,
    last_response_at: float | None = None,
    paths_of: dict[str, str] | None = None,
    keep: Callable[[Message], bool] | None = None,
) -> MicroResult:
    """The history with old tool results cleared, or the same list object when nothing changed.

    ``paths_of`` maps tool call ids to the file path a read/edit/write touched, so
    evicted reads can be reported; ``keep`` says which results are never cleared (pinned by the person).
    """
    settings = settings or MicroSettings()
    trigger = choose_trigger(messages, settings, force=force, now=now, last_response_at=last_response_at)
    if trigger is None:
        return MicroResult(messages)
    candidates = [i for i, m in enumerate(messages) if _clearable(m) and not (keep is not None and keep(m))]
    if trigger == "size":
        # Results the model has not seen yet (after the last assistant turn) are never cleared.
        last_assistant = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
        chosen = _oldest_until_under(messages, [i for i in candidates if i < last_assistant], settings)
    else:
        chosen = candidates[: max(0, len(candidates) - settings.keep)]
    if not chosen:
        return MicroResult(messages, trigger=trigger)
    out = list(messages)
    saved = 0
    cleared: list[str] = []
    for index in chosen:
        message = out[index]
        saved += math.ceil(len(message.content) / 4) - math.ceil(len(CLEARED) / 4)
        saved += IMAGE_TOKEN_ESTIMATE * len(message.images)
        out[index] = message.cleared(CLEARED)
        cleared.append(message.tool_call_id or "")
    paths = paths_of or {}
    gap = round((now - last_response_at) / 60) if trigger == "idle" and last_response_at is not None else None
    return MicroResult(
        messages=out,
        trigger=trigger,
        cleared_ids=cleared,
        kept=len(candidates) - len(chosen),
        tokens_saved=max(0, saved),
        gap_minutes=gap,
        evicted_read_paths=[paths[c] for c in cleared if c in paths],
    )


def _clearable(message: Message) -> bool:
    return (
        message.role == "tool"
        and not message.is_error
        and (message.name or "") in COMPACTABLE_TOOLS
        and message.content != CLEARED
    )


def _compactable_chars(messages: list[Message]) -> int:
    return sum(len(m.content) for m in messages if _clearable(m))


def _oldest_until_under(messages: list[Message], candidates: list[int], settings: MicroSettings) -> list[int]:
    """Oldest first, down to half the threshold; the newest ``keep`` results stay."""
    low_watermark = settings.size_chars // 2
    total = sum(len(messages[i].content) for i in candidates)
    chosen: list[int] = []
    for index in candidates[: max(0, len(candidates) - settings.keep)]:
        if total <= low_watermark:
            break
        total -= len(messages[index].content)
        chosen.append(index)
    return chosen
