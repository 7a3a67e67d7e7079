"""Everything the instruction files contribute to the prompt, with an account of each file.

discover → read (each file once) → expand imports → drop blank files → add
project rules → apply the budget → wrap each file in its context block.
Nothing here raises for a bad file: it becomes a status and a problem line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.context.instructions.budget import (
    BudgetedFile,
    BudgetEntry,
    apply_budget,
    resolve_caps,
    total_near_limit,
)
from app.context.instructions.discovery import DiscoveredFile, discover
from app.context.instructions.display import display_path, ui_path
from app.context.instructions.fscache import FsCache
from app.context.instructions.fspaths import TRAVERSAL_MESSAGE, escaping_link, is_within, real_path
from app.context.instructions.instruction_set import FileStatus, InstructionFile, InstructionSet
from app.context.instructions.memory_types import MemoryType, classify_memory_type
from app.context.instructions.names import COUNTED_FILENAMES, DEFAULT_CONTEXT_FILENAMES, context_filenames
from app.context.instructions.reading import format_bytes
from app.context.instructions.render import context_block
from app.context.instructions.rules import Rule, load_rules

# ``@import`` processing loads with the first instruction file found (a project without any never needs it).
if TYPE_CHECKING:
    from app.context.instructions.imports import ImportFormat, ImportNode

__all__ = ["FileStatus", "InstructionFile", "InstructionSet", "load_instructions"]


def load_instructions(
    cwd: Path,
    *,
    global_dir: Path,
    home: Path,
    filenames: Sequence[str] = DEFAULT_CONTEXT_FILENAMES,
    include_dirs: Iterable[Path] = (),
    per_file_cap: object = None,
    total_cap: object = None,
    import_format: ImportFormat = "tree",
    trusted: bool = True,
    window_tokens: object = None,
) -> InstructionSet:
    """``per_file_cap`` / ``total_cap`` unset: the caps scale with ``window_tokens`` (see budget.py)."""
    names = context_filenames(filenames)
    fs = FsCache()
    found = discover(cwd, global_dir=global_dir, home=home, filenames=names, include_dirs=include_dirs, trusted=trusted, fs=fs)
    where = _Where(real_path(cwd), real_path(global_dir), real_path(home), found.git_root)

    # Blank files say nothing; an unreadable one stays listed so the report can show why.
    expanded = [e for e in (_expand(f, where, fs, import_format) for f in found.files) if e.error or e.content]
    readable = [e for e in expanded if not e.error]
    rule_set = load_rules(where.project_root, cwd=where.cwd, trusted=trusted, fs=fs)

    caps = resolve_caps(per_file_cap, total_cap, window_tokens)
    entries = [BudgetEntry(e.found.display_path, e.content) for e in readable]
    entries += [BudgetEntry(r.display_path, r.content) for r in rule_set.rules]
    budgeted = apply_budget(entries, caps.per_file, caps.total)

    # Budget results come back in the order given: readable files first, then rules.
    results = iter(budgeted)
    files = [_error_file(e) if e.error else _budgeted_file(e, next(results)) for e in expanded]
    files += [where.entry(s.path, FileStatus.ERROR, problems=(str(s),)) for s in found.skipped]
    rules = [_rule_file(rule, next(results), where) for rule in rule_set.rules]

    return InstructionSet(
        files=files,
        rules=rules,
        conditional_rules=rule_set.conditional,
        missing=_missing(names, files, where),
        blocks=[(f, f.block) for f in (*files, *rules) if f.block],
        problems=_problems(found.problems, [*files, *rules], rule_set.problems),
        caps=caps,
        truncated=any(b.truncated for b in budgeted),
        total_near_limit=total_near_limit(budgeted, caps.total),
        file_count=sum(1 for f in files if f.status in _LOADED and f.path.name in COUNTED_FILENAMES),
    )


_LOADED = (FileStatus.OK, FileStatus.TRUNCATED)


@dataclass(frozen=True)
class _Where:
    """The locations every entry is described against."""

    cwd: Path
    global_dir: Path
    home: Path
    git_root: Path | None

    @property
    def project_root(self) -> Path:
        return self.git_root or self.cwd

    def allowed_root(self, path: Path) -> Path:
        """Where a file found at ``path`` may resolve to: the user config dir for user files, else the project
        (a file above the project, or in an include directory elsewhere, stays in its own directory)."""
        for root in (self.global_dir, self.project_root, self.home):
            if is_within(path, root):
                return root
        return path.parent

    def memory_type(self, path: Path) -> MemoryType:
        return classify_memory_type(path, global_dir=self.global_dir, home=self.home, git_root=self.git_root)

    def entry(self, path: Path, status: FileStatus, problems: tuple[str, ...] = ()) -> InstructionFile:
        """An entry for a file that was not read (missing or unreadable)."""
        return InstructionFile(
            path=path,
            display_path=display_path(path, self.cwd),
            ui_path=ui_path(path, self.cwd, self.home),
            memory_type=self.memory_type(path),
            status=status,
            problems=problems,
        )


@dataclass
class _Expanded:
    """One discovered file after reading and import expansion, before the budget."""

    found: DiscoveredFile
    content: str = ""
    tree: ImportNode | None = None
    problems: list[str] = field(default_factory=list)
    error: str | None = None


def _expand(found: DiscoveredFile, where: _Where, fs: FsCache, import_format: ImportFormat) -> _Expanded:
    from app.context.instructions.imports import DEFAULT_MAX_DEPTH, process_imports

    cwd = where.cwd
    escape = escaping_link(found.path, where.allowed_root(found.path), fs)
    if escape is not None:
        return _Expanded(found, error=TRAVERSAL_MESSAGE, problems=[f"Skipped {found.display_path}: {escape}"])
    read = fs.read(found.path)
    if read.text is None:
        return _Expanded(found, error=read.error or "unreadable", problems=[f"Skipped {found.display_path}: {read.error}"])
    problems: list[str] = []
    if read.lossy:
        problems.append(f"{found.display_path}: not valid UTF-8; undecodable bytes were replaced with U+FFFD")
    if read.oversize:
        cap = format_bytes(fs.max_bytes)
        problems.append(f"{found.display_path}: larger than {cap} ({read.size} bytes); only the first {cap} was read")
    result = process_imports(
        read.text,
        found.path.parent,
        current_file=found.path,
        max_depth=DEFAULT_MAX_DEPTH,
        import_format=import_format,
        processed={found.path},
        fs=fs,
    )
    for warning in result.warnings:
        where = display_path(warning.file, cwd) if warning.file else found.display_path
        problems.append(f"{where}: {warning.message}")
    return _Expanded(found, content=result.content.strip(), tree=result.tree, problems=problems)


def _budgeted_file(entry: _Expanded, budget: BudgetedFile) -> InstructionFile:
    found = entry.found
    return InstructionFile(
        path=found.path,
        display_path=found.display_path,
        ui_path=found.ui_path,
        memory_type=found.memory_type,
        status=FileStatus(budget.status.value),
        raw_chars=budget.raw_chars,
        injected_chars=budget.injected_chars,
        causes=budget.causes,
        near_limit=budget.near_limit,
        block=context_block(found.display_path, budget.text) if budget.text else "",
        import_tree=entry.tree,
        problems=(*entry.problems, *budget.messages),
    )


def _error_file(entry: _Expanded) -> InstructionFile:
    found = entry.found
    return InstructionFile(
        path=found.path,
        display_path=found.display_path,
        ui_path=found.ui_path,
        memory_type=found.memory_type,
        status=FileStatus.ERROR,
        problems=tuple(entry.problems),
    )


def _rule_file(rule: Rule, budget: BudgetedFile, where: _Where) -> InstructionFile:
    return InstructionFile(
        path=rule.path,
        display_path=rule.display_path,
        ui_path=ui_path(rule.path, where.cwd, where.home),
        memory_type=where.memory_type(rule.path),
        status=FileStatus(budget.status.value),
        raw_chars=budget.raw_chars,
        injected_chars=budget.injected_chars,
        causes=budget.causes,
        near_limit=budget.near_limit,
        block=context_block(rule.display_path, budget.text) if budget.text else "",
        problems=budget.messages,
    )


def _missing(names: Sequence[str], files: list[InstructionFile], where: _Where) -> list[InstructionFile]:
    """Configured names with nothing at the project root, so a report can say "AGENTS.md: MISSING"."""
    listed = {f.path for f in files}
    paths = [where.project_root / name for name in names]
    return [where.entry(p, FileStatus.MISSING) for p in paths if p not in listed and not os.path.lexists(p)]


def _problems(discovery: list[str], entries: list[InstructionFile], rules: list[str]) -> list[str]:
    """Every line a person should see, once each, in the order the files were met."""
    seen = dict.fromkeys(discovery)
    for entry in entries:
        seen.update(dict.fromkeys(entry.problems))
    seen.update(dict.fromkeys(rules))
    return list(seen)
