"""Instruction files: QWEN.md / AGENTS.md discovery, ``@import``, project rules and the budget.

The entry point is :func:`load_instructions`; the other names are its parts,
exported for the context report, /init and tests.

The names load from their modules on first use (PEP 562, as in ``app.context.memory``): a project
without instruction files needs the discovery and the budget, not ``@import`` or the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.lazy_names import lazy_names

# submodule -> the names it exports
_NAMES = lazy_names(
    __name__,
    {
        "budget": ("BudgetCaps", "BudgetEntry", "BudgetedFile", "apply_budget", "resolve_caps", "truncation_notice"),
        "discovery": ("DiscoveredFile", "discover", "discover_instruction_files"),
        "imports": ("ImportNode", "ImportResult", "find_code_regions", "find_imports", "process_imports"),
        "instruction_set": ("FileStatus", "InstructionFile", "InstructionSet"),
        "loader": ("load_instructions",),
        "memory_types": ("MemoryType",),
        "names": (
            "AGENT_CONTEXT_FILENAME",
            "DEFAULT_CONTEXT_FILENAME",
            "DEFAULT_CONTEXT_FILENAMES",
            "LOCAL_CONTEXT_FILENAME",
            "MEMORY_SECTION_HEADER",
            "context_filenames",
            "current_context_filename",
        ),
        "rules": ("Rule", "RuleSet", "load_rules"),
    },
    globals(),
)
__all__, __getattr__, __dir__ = _NAMES.all, _NAMES.getattr, _NAMES.dir


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from app.context.instructions.budget import (
        BudgetCaps,
        BudgetedFile,
        BudgetEntry,
        apply_budget,
        resolve_caps,
        truncation_notice,
    )
    from app.context.instructions.discovery import DiscoveredFile, discover, discover_instruction_files
    from app.context.instructions.imports import ImportNode, ImportResult, find_code_regions, find_imports, process_imports
    from app.context.instructions.instruction_set import FileStatus, InstructionFile, InstructionSet
    from app.context.instructions.loader import load_instructions
    from app.context.instructions.memory_types import MemoryType
    from app.context.instructions.names import (
        AGENT_CONTEXT_FILENAME,
        DEFAULT_CONTEXT_FILENAME,
        DEFAULT_CONTEXT_FILENAMES,
        LOCAL_CONTEXT_FILENAME,
        MEMORY_SECTION_HEADER,
        context_filenames,
        current_context_filename,
    )
    from app.context.instructions.rules import Rule, RuleSet, load_rules
