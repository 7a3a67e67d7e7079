"""Auto-memory: memories the agent keeps across sessions, in Markdown files.

This package is the store and everything around it that needs neither a
forked agent nor a UI: paths and scopes, the file format, listing and confined
writes, the MEMORY.md indexes, the secret scanner, the prompt section, recall
(heuristic and model-selected), forgetting, and the pure rules that schedule
extraction and dreaming (cursor, gates, lock).

The names below are loaded from their modules on first use (PEP 562): importing any one
module of the package runs this file, and importing all of them here cost every headless turn
about 45 ms (yaml, the stemmer, the forget and index code) that a plain turn never uses
(`python -X importtime -m app -p ...`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.lazy_names import lazy_names

# submodule -> the names it exports
_NAMES = lazy_names(
    __name__,
    {
        "prompt": (
            "memory_age",
            "memory_age_days",
            "memory_freshness_note",
            "memory_freshness_text",
            "ScopeIndex",
            "append_memory_prompt",
            "build_memory_prompt",
            "memory_prompt",
        ),
        "schedule": (
            "ExtractCursor",
            "ExtractionStart",
            "cursor_after_run",
            "plan_extraction_start",
            "read_cursor",
            "start_offset",
            "write_cursor",
            "MemoryMeta",
            "read_meta",
            "write_meta",
            "DreamGateDecision",
            "DreamGateInput",
            "DreamSkipReason",
            "evaluate_dream_gates",
            "count_sessions_since",
            "LockState",
            "LockStatus",
            "acquire_lock",
            "clear_stale_lock",
            "inspect_lock",
            "lock_status",
            "remove_lock",
        ),
        "document": ("ParsedMemory", "parse_memory_text", "render_memory"),
        "entry": ("MemoryEntry",),
        "forget": (
            "ForgetCandidate",
            "ForgetResult",
            "ForgetSelection",
            "apply_forget",
            "forget_candidates",
            "select_forget_candidates",
        ),
        "secrets": ("SecretsInTeamMemoryError", "check_team_memory_secrets", "SecretFinding", "scan_for_secrets"),
        "index": (
            "IndexText",
            "IndexWrite",
            "assemble_index",
            "rebuild_index",
            "encode_index_path_target",
            "sanitize_index_field",
        ),
        "paths": (
            "AUTO_MEMORY_TYPES",
            "MemoryScope",
            "MemoryType",
            "MemoryPaths",
            "TeamMemoryRootSecurityError",
            "check_team_root",
            "is_any_auto_mem_path",
            "is_auto_mem_path",
            "is_team_auto_mem_path",
            "memory_paths",
        ),
        "recall": ("RecallResult", "RecallStrategy", "recall_for_query", "select_memories"),
        "recall_task": ("RecallTask",),
        "store": ("MemoryPathError", "MemoryStore", "MemoryStoreError"),
    },
    globals(),
)
__all__, __getattr__, __dir__ = _NAMES.all, _NAMES.getattr, _NAMES.dir


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from app.context.memory.prompt import memory_age, memory_age_days, memory_freshness_note, memory_freshness_text  # noqa: F401
    from app.context.memory.schedule import ExtractCursor, ExtractionStart, cursor_after_run, plan_extraction_start, read_cursor, start_offset, write_cursor, MemoryMeta, read_meta, write_meta  # noqa: F401
    from app.context.memory.document import ParsedMemory, parse_memory_text, render_memory  # noqa: F401
    from app.context.memory.entry import MemoryEntry  # noqa: F401
    from app.context.memory.forget import ForgetCandidate, ForgetResult, ForgetSelection, apply_forget, forget_candidates, select_forget_candidates  # noqa: F401
    from app.context.memory.schedule import DreamGateDecision, DreamGateInput, DreamSkipReason, evaluate_dream_gates, count_sessions_since  # noqa: F401
    from app.context.memory.secrets import SecretsInTeamMemoryError, check_team_memory_secrets, SecretFinding, scan_for_secrets  # noqa: F401
    from app.context.memory.index import IndexText, IndexWrite, assemble_index, rebuild_index, encode_index_path_target, sanitize_index_field  # noqa: F401
    from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope, MemoryType  # noqa: F401
    from app.context.memory.schedule import LockState, LockStatus, acquire_lock, clear_stale_lock, inspect_lock, lock_status, remove_lock  # noqa: F401
    from app.context.memory.paths import MemoryPaths, TeamMemoryRootSecurityError, check_team_root, is_any_auto_mem_path, is_auto_mem_path, is_team_auto_mem_path, memory_paths  # noqa: F401
    from app.context.memory.prompt import ScopeIndex, append_memory_prompt, build_memory_prompt, memory_prompt  # noqa: F401
    from app.context.memory.recall import RecallResult, RecallStrategy, recall_for_query, select_memories  # noqa: F401
    from app.context.memory.recall_task import RecallTask  # noqa: F401
    from app.context.memory.store import MemoryPathError, MemoryStore, MemoryStoreError  # noqa: F401
