"""Instruction files: QWEN.md / AGENTS.md discovery, ``@import``, project rules and the budget.

The entry point is :func:`load_instructions`; the other names are its parts,
exported for the context report, /init and tests.

The names load from their modules on first use (PEP 562, as in ``app.context.memory``): a project
without instruction files needs the discovery and the budget, not ``@import`` or the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.lazy_names import lazy_names

# name -> the module that defines it
_HOMES: dict[str, str] = {
    "BudgetCaps": "app.context.instructions.budget",
    "BudgetEntry": "app.context.instructions.budget",
    "BudgetedFile": "app.context.instructions.budget",
    "apply_budget": "app.context.instructions.budget",
    "resolve_caps": "app.context.instructions.budget",
    "truncation_notice": "app.context.instructions.budget",
    "DiscoveredFile": "app.context.instructions.discovery",
    "discover": "app.context.instructions.discovery",
    "discover_instruction_files": "app.context.instructions.discovery",
    "ImportNode": "app.context.instructions.imports",
    "ImportResult": "app.context.instructions.imports",
    "find_code_regions": "app.context.instructions.imports",
    "find_imports": "app.context.instructions.imports",
    "process_imports": "app.context.instructions.imports",
    "FileStatus": "app.context.instructions.instruction_set",
    "InstructionFile": "app.context.instructions.instruction_set",
    "InstructionSet": "app.context.instructions.instruction_set",
    "load_instructions": "app.context.instructions.loader",
    "MemoryType": "app.context.instructions.memory_types",
    "AGENT_CONTEXT_FILENAME": "app.context.instructions.names",
    "DEFAULT_CONTEXT_FILENAME": "app.context.instructions.names",
    "DEFAULT_CONTEXT_FILENAMES": "app.context.instructions.names",
    "LOCAL_CONTEXT_FILENAME": "app.context.instructions.names",
    "MEMORY_SECTION_HEADER": "app.context.instructions.names",
    "context_filenames": "app.context.instructions.names",
    "current_context_filename": "app.context.instructions.names",
    "Rule": "app.context.instructions.rules",
    "RuleSet": "app.context.instructions.rules",
    "load_rules": "app.context.instructions.rules",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())


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
