"""``meta.json``: when extraction and dreaming last ran, and what they did.

Unknown keys are kept, so a newer version's fields survive an older one's rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.context.memory.statefile import read_json_object, write_json
from app.context.memory.kinds import AUTO_MEMORY_SCHEMA_VERSION
from app.context.memory.statefile import iso_utc, parse_iso

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
