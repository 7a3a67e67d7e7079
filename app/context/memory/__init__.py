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

# name -> the module that defines it
_HOMES: dict[str, str] = {
    "memory_age": "app.context.memory.prompt",
    "memory_age_days": "app.context.memory.prompt",
    "memory_freshness_note": "app.context.memory.prompt",
    "memory_freshness_text": "app.context.memory.prompt",
    "ExtractCursor": "app.context.memory.schedule",
    "ExtractionStart": "app.context.memory.schedule",
    "cursor_after_run": "app.context.memory.schedule",
    "plan_extraction_start": "app.context.memory.schedule",
    "read_cursor": "app.context.memory.schedule",
    "start_offset": "app.context.memory.schedule",
    "write_cursor": "app.context.memory.schedule",
    "MemoryMeta": "app.context.memory.schedule",
    "read_meta": "app.context.memory.schedule",
    "write_meta": "app.context.memory.schedule",
    "ParsedMemory": "app.context.memory.document",
    "parse_memory_text": "app.context.memory.document",
    "render_memory": "app.context.memory.document",
    "MemoryEntry": "app.context.memory.entry",
    "ForgetCandidate": "app.context.memory.forget",
    "ForgetResult": "app.context.memory.forget",
    "ForgetSelection": "app.context.memory.forget",
    "apply_forget": "app.context.memory.forget",
    "forget_candidates": "app.context.memory.forget",
    "select_forget_candidates": "app.context.memory.forget",
    "DreamGateDecision": "app.context.memory.schedule",
    "DreamGateInput": "app.context.memory.schedule",
    "DreamSkipReason": "app.context.memory.schedule",
    "evaluate_dream_gates": "app.context.memory.schedule",
    "count_sessions_since": "app.context.memory.schedule",
    "SecretsInTeamMemoryError": "app.context.memory.secrets",
    "check_team_memory_secrets": "app.context.memory.secrets",
    "SecretFinding": "app.context.memory.secrets",
    "scan_for_secrets": "app.context.memory.secrets",
    "IndexText": "app.context.memory.index",
    "IndexWrite": "app.context.memory.index",
    "assemble_index": "app.context.memory.index",
    "rebuild_index": "app.context.memory.index",
    "encode_index_path_target": "app.context.memory.index",
    "sanitize_index_field": "app.context.memory.index",
    "AUTO_MEMORY_TYPES": "app.context.memory.paths",
    "MemoryScope": "app.context.memory.paths",
    "MemoryType": "app.context.memory.paths",
    "LockState": "app.context.memory.schedule",
    "LockStatus": "app.context.memory.schedule",
    "acquire_lock": "app.context.memory.schedule",
    "clear_stale_lock": "app.context.memory.schedule",
    "inspect_lock": "app.context.memory.schedule",
    "lock_status": "app.context.memory.schedule",
    "remove_lock": "app.context.memory.schedule",
    "MemoryPaths": "app.context.memory.paths",
    "TeamMemoryRootSecurityError": "app.context.memory.paths",
    "check_team_root": "app.context.memory.paths",
    "is_any_auto_mem_path": "app.context.memory.paths",
    "is_auto_mem_path": "app.context.memory.paths",
    "is_team_auto_mem_path": "app.context.memory.paths",
    "memory_paths": "app.context.memory.paths",
    "ScopeIndex": "app.context.memory.prompt",
    "append_memory_prompt": "app.context.memory.prompt",
    "build_memory_prompt": "app.context.memory.prompt",
    "memory_prompt": "app.context.memory.prompt",
    "RecallResult": "app.context.memory.recall",
    "RecallStrategy": "app.context.memory.recall",
    "recall_for_query": "app.context.memory.recall",
    "select_memories": "app.context.memory.recall",
    "RecallTask": "app.context.memory.recall_task",
    "MemoryPathError": "app.context.memory.store",
    "MemoryStore": "app.context.memory.store",
    "MemoryStoreError": "app.context.memory.store",
}

__all__ = sorted(_HOMES)


__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())



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
