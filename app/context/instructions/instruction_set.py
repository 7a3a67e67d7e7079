"""What loading instructions produced: one entry per file, and the text as it enters the prompt."""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from app.context.instructions.budget import BudgetCaps, resolve_caps, truncation_notice
from app.context.instructions.memory_types import MemoryType
from app.context.instructions.render import join_blocks

if TYPE_CHECKING:  # only types here: @import and the rules load when there are files to read
    from app.context.instructions.imports import ImportNode
    from app.context.instructions.rules import Rule


class FileStatus(StrEnum):
    OK = "OK"
    TRUNCATED = "TRUNCATED"
    MISSING = "MISSING"
    ERROR = "ERROR"


@dataclass(frozen=True)
class InstructionFile:
    """One instruction file or rule as loaded: what became of it, and the exact block it put in the prompt."""

    path: Path
    display_path: str
    ui_path: str
    memory_type: MemoryType
    status: FileStatus
    raw_chars: int = 0  # content after import expansion, trimmed
    injected_chars: int = 0  # content chars actually injected (the block's wrapper lines excluded)
    causes: tuple[str, ...] = ()  # "per-file-limit" / "total-limit"
    near_limit: bool = False
    block: str = ""  # the exact block in the prompt; "" when nothing was injected
    import_tree: ImportNode | None = None
    problems: tuple[str, ...] = ()

    @property
    def cause(self) -> str | None:
        return self.causes[0] if self.causes else None

    @property
    def injected(self) -> bool:
        return bool(self.block)


@dataclass(frozen=True)
class InstructionSet:
    """Everything one load of instructions produced: files and rules, the blocks in prompt order, the caps used."""

    files: list[InstructionFile] = field(default_factory=list)  # discovered files: OK / TRUNCATED / ERROR
    rules: list[InstructionFile] = field(default_factory=list)  # unconditional project rules
    conditional_rules: list[Rule] = field(default_factory=list)  # wait for a matching file; never injected here
    missing: list[InstructionFile] = field(default_factory=list)  # configured names absent from the project root
    # In prompt order; the texts joined with "\n\n" are exactly `text`.
    blocks: list[tuple[InstructionFile, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    caps: BudgetCaps = field(default_factory=lambda: resolve_caps())
    truncated: bool = False
    total_near_limit: bool = False
    file_count: int = 0

    @cached_property
    def text(self) -> str:
        """The memory content exactly as it is injected (instructions, then rules)."""
        return join_blocks(block for _, block in self.blocks)

    @property
    def notice(self) -> str:
        """The truncation notice the prompt carries when any file was cut; "" otherwise."""
        return truncation_notice() if self.truncated else ""

    @property
    def rule_count(self) -> int:
        return len(self.rules)

    @property
    def rows(self) -> list[InstructionFile]:
        """Every entry a context report lists: files, rules, then what is missing."""
        return [*self.files, *self.rules, *self.missing]
