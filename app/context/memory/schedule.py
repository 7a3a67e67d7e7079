"""When the background memory tasks (extraction, dreaming) run: their state files, the dream's lock
and its gates.

The state files sit beside the project memory root (``meta.json``, ``extract-cursor.json``,
``consolidation.lock``). Their format: JSON written atomically, indented by two spaces, ending in a newline.

Timestamps in them: ISO 8601 in UTC with milliseconds and a ``Z``
(``2026-08-19T09:30:00.000Z``), the form JavaScript's toISOString writes, so
state written by either implementation reads back in the other.

The extraction cursor: how far into a session's history memories were already extracted.

Stored in ``extract-cursor.json`` as ``{sessionId?, processedOffset?, updatedAt}``.
An offset only counts for the session that wrote it, and one past the end of
the history (compaction shortens it) starts over from 0; otherwise new
messages would be skipped for the rest of the session.

``meta.json``: when extraction and dreaming last ran, and what they did.

Unknown keys are kept, so a newer version's fields survive an older one's rewrite.

The consolidation lock (``consolidation.lock``): one dream at a time per project, across processes.

The file holds its holder's PID. A lock whose holder is dead, or that is over
an hour old, is stale: a crashed process must not stop dreaming for good.

Clearing a stale lock is a look and then a delete. Between the two, another
process may have cleared the same stale lock and taken a fresh one, which the
delete would then remove: two dreams at once. So looking, clearing and taking
happen under an flock on a file beside the lock (``<lock>.guard``), which the
kernel releases when its holder dies: the guard itself can never go stale.

``fcntl`` exists only on POSIX: it is imported when the guard is first taken,
and Windows takes the same kind of lock with ``msvcrt.locking`` (also released
when the holder dies), so importing the runtime never fails for it.

When the background memory tasks run, and what they are doing, in words.

Whether to start a dream now (``evaluate_dream_gates``): the gates, in order; the first that fails names the reason.

Pure over its inputs: the caller passes the clock, the metadata, the lock's
state and a function that counts sessions, which is only called when every
cheaper gate has passed (it reads a directory).

Counting the sessions recorded since the last dream (one of the dream's gates).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import field, replace
from app.dataclass import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from app.context.memory.paths import AUTO_MEMORY_SCHEMA_VERSION
from app.fsutil import atomic_write_text

EPOCH_ISO = "1970-01-01T00:00:00.000Z"


def iso_utc(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_iso(text: object) -> float | None:
    """Seconds since the epoch, or None for anything that is not an ISO timestamp."""
    if not isinstance(text, str) or not text.strip():
        return None
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The object in ``path``; None when the file is missing, unreadable or not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class _HistoryMessage(Protocol):
    role: str
    content: Any


@dataclass(frozen=True)
class ExtractCursor:
    """How far into a session's history memories were already extracted (``extract-cursor.json``)."""

    updated_at: str = EPOCH_ISO
    session_id: str | None = None
    processed_offset: int | None = None


@dataclass(frozen=True)
class ExtractionStart:
    """Where extraction starts; ``skip_cursor`` is set when there is nothing new to read,
    and is then the cursor to write (past the whole history) instead of running."""

    start: int
    skip_cursor: ExtractCursor | None = None

    @property
    def skip(self) -> bool:
        return self.skip_cursor is not None


def read_cursor(path: Path) -> ExtractCursor:
    """The stored cursor; a missing or damaged file reads as a cursor at the epoch with no offset."""
    data = read_json_object(path)
    if data is None:
        return ExtractCursor()
    session = data.get("sessionId")
    offset = data.get("processedOffset")
    updated = data.get("updatedAt")
    return ExtractCursor(
        updated_at=updated if isinstance(updated, str) else EPOCH_ISO,
        session_id=session if isinstance(session, str) else None,
        processed_offset=offset if isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0 else None,
    )


def write_cursor(path: Path, cursor: ExtractCursor) -> None:
    data: dict[str, Any] = {}
    if cursor.session_id is not None:
        data["sessionId"] = cursor.session_id
    if cursor.processed_offset is not None:
        data["processedOffset"] = cursor.processed_offset
    data["updatedAt"] = cursor.updated_at
    write_json(path, data)


def raw_offset(cursor: ExtractCursor, session_id: str) -> int:
    """The stored offset when it belongs to ``session_id``, else 0."""
    if cursor.session_id == session_id and cursor.processed_offset is not None:
        return cursor.processed_offset
    return 0


def start_offset(cursor: ExtractCursor, session_id: str, history_length: int) -> int:
    """Where to start reading: 0 when the offset is past the end (the history shrank)."""
    offset = raw_offset(cursor, session_id)
    return 0 if offset > history_length else offset


def has_new_user_message(history: Sequence[_HistoryMessage], start: int) -> bool:
    """Whether ``history[start:]`` holds a user message with text in it."""
    return any(message.role == "user" and _has_text(message.content) for message in history[start:])


def plan_extraction_start(
    cursor: ExtractCursor, session_id: str, history: Sequence[_HistoryMessage], now: float
) -> ExtractionStart:
    start = start_offset(cursor, session_id, len(history))
    if has_new_user_message(history, start):
        return ExtractionStart(start)
    return ExtractionStart(start, ExtractCursor(iso_utc(now), session_id, len(history)))


def cursor_after_run(
    session_id: str, *, start: int, history_length: int, touched_topics: bool, tools_ran: bool, now: float
) -> ExtractCursor:
    """Past the whole history after every completed run, saved or not: a run that found nothing
    worth saving has read those messages, and reading them again costs a request for the same
    answer. (A run cut off by its budget does not get here: the caller leaves the cursor put.)
    ``start``, ``touched_topics`` and ``tools_ran`` are kept for the callers' records."""
    del start, touched_topics, tools_ran
    return ExtractCursor(iso_utc(now), session_id, history_length)


def _has_text(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(_has_text(part.get("text") if isinstance(part, dict) else part) for part in content)
    return False


# Python field -> JSON key.
_KEYS = {
    "updated_at": "updatedAt",
    "last_extraction_at": "lastExtractionAt",
    "last_extraction_session_id": "lastExtractionSessionId",
    "last_extraction_touched_topics": "lastExtractionTouchedTopics",
    "last_extraction_status": "lastExtractionStatus",
    "last_dream_at": "lastDreamAt",
    "last_dream_session_id": "lastDreamSessionId",
    "last_dream_touched_topics": "lastDreamTouchedTopics",
    "last_dream_status": "lastDreamStatus",
    "last_session_scan_at": "lastSessionScanAt",
    "recent_session_ids_since_dream": "recentSessionIdsSinceDream",
}
_LIST_FIELDS = {"last_extraction_touched_topics", "last_dream_touched_topics", "recent_session_ids_since_dream"}
_TIME_FIELDS = {"updated_at", "last_extraction_at", "last_dream_at", "last_session_scan_at"}


@dataclass(frozen=True)
class MemoryMeta:
    """Times are seconds since the epoch (ISO strings in the file)."""

    updated_at: float | None = None
    last_extraction_at: float | None = None
    last_extraction_session_id: str | None = None
    last_extraction_touched_topics: tuple[str, ...] = ()
    last_extraction_status: str | None = None  # updated | noop
    last_dream_at: float | None = None
    last_dream_session_id: str | None = None
    last_dream_touched_topics: tuple[str, ...] = ()
    last_dream_status: str | None = None  # updated | noop | failed (cut off by its time budget)
    last_session_scan_at: float | None = None
    recent_session_ids_since_dream: tuple[str, ...] = ()
    schema_version: int = AUTO_MEMORY_SCHEMA_VERSION
    extra: dict[str, Any] = field(default_factory=dict)

    def touched(self, now: float) -> MemoryMeta:
        return replace(self, updated_at=now)


def read_meta(path: Path) -> MemoryMeta:
    """The metadata in ``path``; a missing or damaged file reads as empty metadata."""
    data = read_json_object(path) or {}
    values: dict[str, Any] = {}
    for name, key in _KEYS.items():
        raw = data.get(key)
        if name in _TIME_FIELDS:
            values[name] = parse_iso(raw)
        elif name in _LIST_FIELDS:
            values[name] = tuple(str(v) for v in raw) if isinstance(raw, list) else ()
        else:
            values[name] = raw if isinstance(raw, str) else None
    version = data.get("schemaVersion")
    known = set(_KEYS.values()) | {"schemaVersion"}
    return MemoryMeta(
        **values,
        schema_version=version if isinstance(version, int) else AUTO_MEMORY_SCHEMA_VERSION,
        extra={k: v for k, v in data.items() if k not in known},
    )


def write_meta(path: Path, meta: MemoryMeta) -> None:
    data: dict[str, Any] = dict(meta.extra)
    data["schemaVersion"] = meta.schema_version
    for name, key in _KEYS.items():
        value = getattr(meta, name)
        if name in _TIME_FIELDS:
            if value is not None:
                data[key] = iso_utc(value)
        elif name in _LIST_FIELDS:
            data[key] = list(value)
        elif value is not None:
            data[key] = value
    write_json(path, data)

DREAM_LOCK_STALE_SECONDS = 3_600  # DREAM_LOCK_STALE_MS = 3 600 000


class LockState(StrEnum):
    FREE = "free"
    HELD = "held"
    STALE = "stale"


@dataclass(frozen=True)
class LockStatus:
    """How the consolidation lock stands: free, held or stale, with its holder's PID and its age."""

    state: LockState
    pid: int | None = None
    age: float | None = None  # seconds


def pid_alive(pid: int) -> bool:
    """Whether a process with this PID exists (signal 0 checks without sending anything)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, it is just not ours
        return True
    except OSError:
        return False
    return True


def parse_lock_pid(content: str | None) -> int | None:
    try:
        pid = int((content or "").strip())
    except ValueError:
        return None
    return pid if pid > 0 else None


def lock_status(content: str | None, mtime: float | None, now: float, is_alive: Callable[[int], bool] = pid_alive) -> LockStatus:
    """What a lock file with this content and modification time means at ``now``.

    ``content`` None means there is no lock file. A file without a readable PID
    has no holder to wait for, so it counts as stale.
    """
    if content is None or mtime is None:
        return LockStatus(LockState.FREE)
    pid = parse_lock_pid(content)
    age = max(0.0, now - mtime)
    if pid is None or age > DREAM_LOCK_STALE_SECONDS or not is_alive(pid):
        return LockStatus(LockState.STALE, pid, age)
    return LockStatus(LockState.HELD, pid, age)


def inspect_lock(path: Path, now: float, is_alive: Callable[[int], bool] = pid_alive) -> LockStatus:
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
        mtime = path.stat().st_mtime
    except OSError:
        return LockStatus(LockState.FREE)
    return lock_status(content, mtime, now, is_alive)


def clear_stale_lock(path: Path, now: float, is_alive: Callable[[int], bool] = pid_alive) -> LockStatus:
    """Remove the lock if it is stale; returns what it was."""
    with _guarded(path):
        status = inspect_lock(path, now, is_alive)
        if status.state is LockState.STALE:
            remove_lock(path)
    return status


def acquire_lock(path: Path, pid: int | None = None) -> bool:
    """Create the lock holding ``pid`` (default: this process); False when it already exists."""
    with _guarded(path):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid() if pid is None else pid))
    return True


@contextmanager
def _guarded(path: Path) -> Iterator[None]:
    """The lock file's guard, held for the few microseconds of a look-and-change."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".guard"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _lock_exclusive(fd)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def _lock_exclusive(fd: int) -> None:
    """Block until this process holds the exclusive lock on ``fd``."""
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    import msvcrt  # Windows: lock the file's first byte; LK_LOCK retries for ten seconds, so loop

    while True:
        try:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]
            return
        except OSError:
            continue


def remove_lock(path: Path) -> bool:
    """Delete the lock; False when that failed (the caller then forces it off next time)."""
    try:
        path.unlink()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True

SESSION_FILE = re.compile(r"^[0-9a-fA-F-]{32,36}\.jsonl$")


def count_sessions_since(chats_dir: Path, since: float | None, current_session_id: str | None) -> int:
    """Session transcripts modified after ``since`` (all of them when None), the current one left out."""
    try:
        listing = list(os.scandir(chats_dir))
    except OSError:
        return 0
    count = 0
    for item in listing:
        if not SESSION_FILE.match(item.name) or item.name == f"{current_session_id}.jsonl":
            continue
        try:
            mtime = item.stat().st_mtime
        except OSError:
            continue
        if since is None or mtime > since:
            count += 1
    return count


DEFAULT_AUTO_DREAM_MIN_HOURS = 24
DEFAULT_AUTO_DREAM_MIN_SESSIONS = 5
SESSION_SCAN_INTERVAL_SECONDS = 600  # SESSION_SCAN_INTERVAL_MS = 600 000
PRESSURE_LEVELS_THAT_BLOCK = frozenset({"hard", "critical"})


class DreamSkipReason(StrEnum):
    DISABLED = "disabled"
    MEMORY_PRESSURE = "memory_pressure"
    SAME_SESSION = "same_session"
    MIN_HOURS = "min_hours"
    SCAN_THROTTLED = "scan_throttled"
    MIN_SESSIONS = "min_sessions"
    LOCKED = "locked"
    RUNNING = "running"


@dataclass(frozen=True)
class DreamGateInput:
    """Everything the dream's gates look at, given by the caller so that evaluate_dream_gates stays pure."""

    now: float  # seconds since the epoch
    session_id: str
    enabled: bool = True
    memory_pressure: str = "normal"  # normal | moderate | hard | critical
    last_dream_at: float | None = None
    last_dream_session_id: str | None = None
    last_session_scan_at: float | None = None
    lock: LockState = LockState.FREE
    lock_release_failed: bool = False  # an earlier release failed: our own lock may be stuck
    running: bool = False  # a memory task is in flight for this project
    min_hours: float = DEFAULT_AUTO_DREAM_MIN_HOURS
    min_sessions: int = DEFAULT_AUTO_DREAM_MIN_SESSIONS
    scan_interval: float = SESSION_SCAN_INTERVAL_SECONDS


@dataclass(frozen=True)
class DreamGateDecision:
    """Whether to dream now (else the first gate that failed), and what the caller must record or remove."""

    reason: DreamSkipReason | None  # None: go ahead
    scanned_at: float | None = None  # set when sessions were counted: record it as the last scan
    sessions_since_dream: int | None = None
    remove_lock: bool = False  # the lock file must go first (stale, or stuck by a failed release)

    @property
    def run(self) -> bool:
        return self.reason is None


def evaluate_dream_gates(gate: DreamGateInput, count_sessions: Callable[[], int]) -> DreamGateDecision:
    """Run the gates in order: disabled, memory pressure, same session, hours since the
    last dream, scan throttle, sessions since the last dream, the lock, a task in flight."""
    if not gate.enabled:
        return DreamGateDecision(DreamSkipReason.DISABLED)
    if gate.memory_pressure in PRESSURE_LEVELS_THAT_BLOCK:
        return DreamGateDecision(DreamSkipReason.MEMORY_PRESSURE)
    if gate.last_dream_session_id is not None and gate.last_dream_session_id == gate.session_id:
        return DreamGateDecision(DreamSkipReason.SAME_SESSION)
    if gate.last_dream_at is not None and gate.now - gate.last_dream_at < gate.min_hours * 3600:
        return DreamGateDecision(DreamSkipReason.MIN_HOURS)
    if gate.last_session_scan_at is not None and gate.now - gate.last_session_scan_at < gate.scan_interval:
        return DreamGateDecision(DreamSkipReason.SCAN_THROTTLED)
    sessions = count_sessions()
    if sessions < gate.min_sessions:
        return DreamGateDecision(DreamSkipReason.MIN_SESSIONS, scanned_at=gate.now, sessions_since_dream=sessions)
    # A failed release leaves a fresh lock with a live PID (ours) that would block
    # every later dream; forcing it off heals that within the session.
    remove_lock = gate.lock_release_failed or gate.lock is LockState.STALE
    if gate.lock is LockState.HELD and not gate.lock_release_failed:
        return DreamGateDecision(DreamSkipReason.LOCKED, gate.now, sessions)
    if gate.running:
        return DreamGateDecision(DreamSkipReason.RUNNING, gate.now, sessions, remove_lock)
    return DreamGateDecision(None, gate.now, sessions, remove_lock)
