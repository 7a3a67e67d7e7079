"""Auto-memory: memories the agent keeps across sessions, in Markdown files.

This package is the store and everything around it that needs neither a
forked agent nor a UI: paths and scopes, the file format, listing and confined
writes, the MEMORY.md indexes, the secret scanner, the prompt section, recall
(heuristic and model-selected), forgetting, and the pure rules that schedule
extraction and dreaming (cursor, gates, lock).
"""

from app.context.memory.age import (
    memory_age,
    memory_age_days,
    memory_freshness_note,
    memory_freshness_text,
)
from app.context.memory.statefile import (
    ExtractCursor,
    ExtractionStart,
    cursor_after_run,
    plan_extraction_start,
    read_cursor,
    start_offset,
    write_cursor,
)
from app.context.memory.document import ParsedMemory, parse_memory_text, render_memory
from app.context.memory.entry import MemoryEntry
from app.context.memory.forget import (
    ForgetCandidate,
    ForgetResult,
    ForgetSelection,
    apply_forget,
    forget_candidates,
    select_forget_candidates,
)
from app.context.memory.gates import (
    DreamGateDecision,
    DreamGateInput,
    DreamSkipReason,
    evaluate_dream_gates,
)
from app.context.memory.secrets import SecretsInTeamMemoryError, check_team_memory_secrets
from app.context.memory.index import (
    IndexText,
    IndexWrite,
    assemble_index,
    rebuild_index,
)
from app.context.memory.index import encode_index_path_target, sanitize_index_field
from app.context.memory.kinds import AUTO_MEMORY_TYPES, MemoryScope, MemoryType
from app.context.memory.lock import (
    LockState,
    LockStatus,
    acquire_lock,
    clear_stale_lock,
    inspect_lock,
    lock_status,
    remove_lock,
)
from app.context.memory.statefile import MemoryMeta, read_meta, write_meta
from app.context.memory.paths import (
    MemoryPaths,
    TeamMemoryRootSecurityError,
    check_team_root,
    is_any_auto_mem_path,
    is_auto_mem_path,
    is_team_auto_mem_path,
    memory_paths,
)
from app.context.memory.prompt import (
    ScopeIndex,
    append_memory_prompt,
    build_memory_prompt,
    memory_prompt,
)
from app.context.memory.recall import (
    RecallResult,
    RecallStrategy,
    recall_for_query,
    select_memories,
)
from app.context.memory.recall_task import RecallTask
from app.context.memory.secrets import SecretFinding, scan, scan_for_secrets
from app.context.memory.gates import count_sessions_since
from app.context.memory.store import MemoryPathError, MemoryStore, MemoryStoreError

__all__ = [
    "AUTO_MEMORY_TYPES",
    "DreamGateDecision",
    "DreamGateInput",
    "DreamSkipReason",
    "ExtractCursor",
    "ExtractionStart",
    "ForgetCandidate",
    "ForgetResult",
    "ForgetSelection",
    "IndexText",
    "IndexWrite",
    "LockState",
    "LockStatus",
    "MemoryEntry",
    "MemoryMeta",
    "MemoryPathError",
    "MemoryPaths",
    "MemoryScope",
    "MemoryStore",
    "MemoryStoreError",
    "MemoryType",
    "ParsedMemory",
    "RecallResult",
    "RecallStrategy",
    "RecallTask",
    "ScopeIndex",
    "SecretFinding",
    "SecretsInTeamMemoryError",
    "TeamMemoryRootSecurityError",
    "acquire_lock",
    "append_memory_prompt",
    "apply_forget",
    "assemble_index",
    "build_memory_prompt",
    "check_team_memory_secrets",
    "check_team_root",
    "clear_stale_lock",
    "count_sessions_since",
    "cursor_after_run",
    "encode_index_path_target",
    "evaluate_dream_gates",
    "forget_candidates",
    "inspect_lock",
    "is_any_auto_mem_path",
    "is_auto_mem_path",
    "is_team_auto_mem_path",
    "lock_status",
    "memory_age",
    "memory_age_days",
    "memory_freshness_note",
    "memory_freshness_text",
    "memory_paths",
    "memory_prompt",
    "parse_memory_text",
    "plan_extraction_start",
    "read_cursor",
    "read_meta",
    "rebuild_index",
    "recall_for_query",
    "remove_lock",
    "render_memory",
    "sanitize_index_field",
    "scan",
    "scan_for_secrets",
    "select_forget_candidates",
    "select_memories",
    "start_offset",
    "write_cursor",
    "write_meta",
]
