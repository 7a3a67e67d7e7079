"""Instruction files: QWEN.md / AGENTS.md discovery, ``@import``, project rules and the budget.

The entry point is :func:`load_instructions`; the other names are its parts,
exported for the context report, /init and tests.
"""

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

__all__ = [
    "AGENT_CONTEXT_FILENAME",
    "DEFAULT_CONTEXT_FILENAME",
    "DEFAULT_CONTEXT_FILENAMES",
    "LOCAL_CONTEXT_FILENAME",
    "MEMORY_SECTION_HEADER",
    "BudgetCaps",
    "BudgetEntry",
    "BudgetedFile",
    "DiscoveredFile",
    "FileStatus",
    "ImportNode",
    "ImportResult",
    "InstructionFile",
    "InstructionSet",
    "MemoryType",
    "Rule",
    "RuleSet",
    "apply_budget",
    "context_filenames",
    "current_context_filename",
    "discover",
    "discover_instruction_files",
    "find_code_regions",
    "find_imports",
    "load_instructions",
    "load_rules",
    "process_imports",
    "resolve_caps",
    "truncation_notice",
]
