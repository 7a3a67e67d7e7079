"""The ContextEngine protocol, the built-in engine, and how a third-party engine is found and selected.

The record, the memory and the per-turn view have different owners: the session
recorder owns the record, the memory manager owns memory files, and an engine
only decides which messages of the history enter this turn's view (and may add
to the system prompt). An engine that keeps its own copy of turns must commit
each turn exactly once (see engine_turns.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from app.core.history import Message

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "agentctx.context_engines"
BUILTIN_ID = "builtin"
CURRENT_TURN_FENCE_V1 = "before-current-turn-entry-v1"
ATOMIC_IDEMPOTENT_V1 = "atomic-idempotent-v1"
REQUIRED_METHODS = ("ingest", "assemble", "compact")


@dataclass(frozen=True)
class EngineInfo:
    """What a context engine says about itself: its id, name and version, and the capabilities it declares."""

    id: str
    name: str
    version: str = ""
    owns_compaction: bool = False
    # Durable-turn capabilities an engine that keeps its own copy of turns must declare.
    current_turn_fence: str | None = None
    turn_advancement_idempotency: str | None = None


@dataclass
class AssembleResult:
    """What an engine's ``assemble`` returns: this turn's view of the history, and any addition to the system prompt."""

    messages: list[Message]
    estimated_tokens: int = 0
    system_prompt_addition: str = ""


@dataclass
class CompactResult:
    """What an engine's ``compact`` returns: whether it worked, whether anything was compacted, and the token counts."""

    ok: bool
    compacted: bool
    reason: str = ""
    tokens_before: int = 0
    tokens_after: int = 0


@dataclass
class MaintainResult:
    """What an optional ``maintain(session_id, session_file)`` pass did to the engine's own store.

    It runs after each finished turn. The session record belongs to the recorder, so an
    engine cannot rewrite it here; it tidies what it keeps itself.
    """

    changed: bool = False
    bytes_freed: int = 0
    reason: str = ""


@dataclass
class CommitResult:
    """What an engine's ``commit_turn`` returns; only ``committed`` or ``duplicate`` take the turn off the queue."""

    status: str  # committed | duplicate (anything else keeps the turn queued)


@dataclass
class EngineHost:
    """What an engine may use: where it may keep files, and facts about the session."""

    state_dir: Path
    project_root: Path
    model: str
    context_window: int
    settings: dict[str, Any] = field(default_factory=dict)  # the engine's own section of settings


@runtime_checkable
class ContextEngine(Protocol):
    info: EngineInfo

    def ingest(self, session_id: str, message: Message) -> bool:
        """A message entered the session; True if the engine stored it (False: the recorder owns it)."""
        ...

    def assemble(self, session_id: str, messages: Sequence[Message], *, token_budget: int, model: str) -> AssembleResult:
        """The messages of this turn's view from ``messages`` (always the history before the current user entry)."""
        ...

    async def compact(self, session_id: str, *, force: bool, reason: str, custom_instructions: str = "") -> CompactResult: ...


class BuiltinEngine:
    """The engine everything falls back to: the view is the history; compaction is the runtime's."""

    info = EngineInfo(id=BUILTIN_ID, name="Built-in Context Engine", version="1.0.0")

    def ingest(self, session_id: str, message: Message) -> bool:
        return False  # the session recorder owns persistence

    def assemble(self, session_id: str, messages: Sequence[Message], *, token_budget: int, model: str) -> AssembleResult:
        return AssembleResult(messages=list(messages))

    async def compact(self, session_id: str, *, force: bool, reason: str, custom_instructions: str = "") -> CompactResult:
        return CompactResult(ok=True, compacted=False, reason="delegated to the built-in compactor")

    def after_turn(self, session_id: str, messages: Sequence[Message], pre_prompt_count: int) -> None:
        return None

    def maintain(self, session_id: str, session_file: Path) -> MaintainResult:
        return MaintainResult(reason="nothing of its own to maintain")

    def dispose(self) -> None:
        return None


@dataclass
class EngineSelection:
    """The engine in use for this process, the one settings asked for, and why they differ (if they do)."""

    engine: Any  # a ContextEngine
    requested: str
    problem: str = ""  # why the requested engine is not the one in use

    @property
    def quarantined(self) -> bool:
        return bool(self.problem)


def validate_engine(engine: Any, expected_id: str) -> str:
    """"" when the object can serve as an engine, else what is wrong with it."""
    info = getattr(engine, "info", None)
    if not isinstance(info, EngineInfo):
        return "it has no `info` of type EngineInfo"
    if info.id != expected_id:
        return f"its info.id is {info.id!r}, not {expected_id!r}"
    missing = [name for name in REQUIRED_METHODS if not callable(getattr(engine, name, None))]
    if missing:
        return f"it lacks the method(s) {', '.join(missing)}"
    return ""


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    return list(entry_points(group=ENTRY_POINT_GROUP))


def select_engine(engine_id: str, host: EngineHost, *, find: Callable[[], list[Any]] = _entry_points) -> EngineSelection:
    """The engine named in settings, or the built-in one with the reason it could not be used."""
    if not engine_id or engine_id == BUILTIN_ID:
        return EngineSelection(BuiltinEngine(), BUILTIN_ID)
    try:
        candidates = [ep for ep in find() if ep.name == engine_id]
    except Exception as exc:
        return _quarantine(engine_id, f"the installed engines could not be listed ({exc})")
    if not candidates:
        return _quarantine(engine_id, f"no installed package provides it (entry point group {ENTRY_POINT_GROUP!r})")
    try:
        factory = candidates[0].load()
        engine = factory(host)
    except Exception as exc:
        return _quarantine(engine_id, f"it failed to load: {type(exc).__name__}: {exc}")
    problem = validate_engine(engine, engine_id)
    if problem:
        return _quarantine(engine_id, f"it failed validation: {problem}")
    return EngineSelection(engine, engine_id)


def _quarantine(engine_id: str, reason: str) -> EngineSelection:
    problem = f"Context engine {engine_id!r} is quarantined for this process and the built-in engine is used: {reason}."
    log.warning(problem)
    return EngineSelection(BuiltinEngine(), engine_id, problem)
