"""``@path`` imports in instruction files (Qwen Code's memoryImportProcessor, §3).

An import is ``@`` at the start of the text or after whitespace, followed by a
path that starts with ``.``, ``/`` or an ASCII letter. Tree format replaces each
import in place with the imported file (recursively, depth ≤ 5); flat format
lists every file reached once. Problems never raise: they become HTML comments
in the text and warnings for a person.

In tree format a file imported twice is expanded twice, as Qwen Code 0.24.4 does: only a file further up
the current chain of imports (a cycle) becomes ``<!-- File already processed -->``. Since repeats multiply
along the chain (ten imports of a file that imports ten more, five levels deep), one load expands at
most MAX_EXPANSIONS files; Qwen Code has no such bound, and no real file comes near it.
"""

from __future__ import annotations

import os
import re
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path
from typing import Literal

from app.context.instructions.code_regions import find_code_regions, in_regions, may_be_code_at, parse_extent
from app.context.instructions.fscache import FsCache
from app.context.instructions.fspaths import TRAVERSAL_MESSAGE, is_within
from app.context.instructions.reading import FileText, format_bytes

__all__ = [
    "ImportFormat",
    "ImportMatch",
    "ImportNode",
    "ImportResult",
    "ImportWarning",
    "find_code_regions",
    "find_imports",
    "process_imports",
    "validate_import_path",
]

ImportFormat = Literal["tree", "flat"]
DEFAULT_MAX_DEPTH = 5
MAX_EXPANSIONS = 1000
UNKNOWN_FILE = "unknown"
_WHITESPACE = frozenset(" \t\n\r")
_URL = re.compile(r"^(file|https?)://")


@dataclass(frozen=True)
class ImportMatch:
    """One ``@path`` import in a text, and where it sits."""

    start: int  # index of the "@"
    end: int  # index just past the path
    path: str


@dataclass
class ImportNode:
    """One file in the tree of imports, with the files it imports."""

    path: str
    imports: list[ImportNode] = field(default_factory=list)


@dataclass(frozen=True)
class ImportWarning:
    """An import left unexpanded (it failed, or the depth limit was reached), worded for a person."""

    # The file whose text held the import (None when the caller named no file).
    file: Path | None
    message: str

    def __str__(self) -> str:
        return f"{self.file or UNKNOWN_FILE}: {self.message}"


@dataclass
class ImportResult:
    """A text with its imports expanded, the tree of files reached, and the warnings."""

    content: str
    tree: ImportNode
    warnings: list[ImportWarning] = field(default_factory=list)


def find_imports(text: str) -> list[ImportMatch]:
    """Every ``@path`` candidate, by a hand scan (a regex would state the word-start rule less plainly)."""
    found: list[ImportMatch] = []
    length = len(text)
    i = text.find("@")
    while i != -1:
        if i > 0 and text[i - 1] not in _WHITESPACE:  # me@example.com
            i = text.find("@", i + 1)
            continue
        end = i + 1
        while end < length and text[end] not in _WHITESPACE:
            end += 1
        path = text[i + 1 : end]
        if path and (path[0] in "./" or "a" <= path[0] <= "z" or "A" <= path[0] <= "Z"):
            found.append(ImportMatch(i, end, path))
        i = text.find("@", end)
    return found


def validate_import_path(path: str, base_path: Path | str, allowed_dirs: list[Path], fs: FsCache | None = None) -> bool:
    """No URLs, and the target (symlinks resolved) must be an allowed directory or lie under one.

    Resolving symlinks means a link inside the project cannot bring in a file from outside it.
    """
    if _URL.match(path):
        return False
    fs = fs or FsCache()
    target = fs.real(_join(str(base_path), path))
    return any(is_within(target, fs.real(d)) for d in allowed_dirs)


def process_imports(
    content: str,
    base_path: Path,
    *,
    current_file: Path | None = None,
    project_root: Path | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    import_format: ImportFormat = "tree",
    processed: set[Path] | None = None,
    fs: FsCache | None = None,
) -> ImportResult:
    """Expand the imports in ``content``; ``base_path`` is the directory relative paths start from.

    ``processed`` holds files that must not be imported (the loader passes the file itself); in tree
    format each import adds its file to the chain below it only, so a cycle becomes
    ``<!-- File already processed -->`` while a second import of the same file is expanded again.
    In flat format every file is listed once.
    ``fs`` lets one load share reads and path lookups across files.
    """
    fs = fs or FsCache()
    base = os.path.abspath(base_path)
    root = project_root or fs.git_root(base) or Path(base)
    expander = _Expander(fs=fs, root=fs.real(root), max_depth=max_depth, processed={fs.real(p) for p in processed or ()})
    current = os.path.normpath(os.path.abspath(current_file)) if current_file else None
    tree = ImportNode(current or UNKNOWN_FILE)
    if import_format == "flat":
        text = expander.flat(content, base, current, tree)
    else:
        text = expander.tree(content, base, current, 0, tree, frozenset(expander.processed))
    return ImportResult(text, tree, expander.warnings)


class _Expander:
    """One expansion: the files already taken and the warnings so far. Paths are plain strings here."""

    def __init__(self, *, fs: FsCache, root: str, max_depth: int, processed: set[str]) -> None:
        self.fs = fs
        self.root = root
        self.max_depth = max_depth
        self.processed = processed
        self.expansions = 0
        self.warnings: list[ImportWarning] = []

    def tree(self, content: str, base: str, current: str | None, depth: int, node: ImportNode, chain: frozenset[str]) -> str:
        """``content`` with its imports replaced; ``chain`` is the files above it (a cycle if met again)."""
        imports = _live_imports(content)
        if not imports:
            return content
        if depth >= self.max_depth:
            # Said only when something is actually left unexpanded.
            self._warn(current, f"Maximum import depth ({self.max_depth}) reached. Stopping import processing.")
            return content
        parts: list[str] = []
        last = 0
        for match in imports:
            parts.append(content[last : match.start])
            parts.append(self._replacement(match.path, base, current, depth, node, chain))
            last = match.end
        parts.append(content[last:])
        return "".join(parts)

    def _replacement(self, path: str, base: str, current: str | None, depth: int, node: ImportNode, chain: frozenset[str]) -> str:
        target = self._target(path, base, current)
        if target is None:
            return f"<!-- Import failed: {path} - {TRAVERSAL_MESSAGE} -->"
        key = self.fs.real(target)
        if key in chain:
            return f"<!-- File already processed: {path} -->"
        read = self.fs.read(target)
        if read.missing:
            return f"@{path}"  # probably prose that mentions an @, not an import
        failure = _failure(read, self.fs.max_bytes)
        if failure is not None:
            self._warn(current, f"Import failed: {path} - {failure}")
            return f"<!-- Import failed: {path} - {failure} -->"
        if self.expansions >= MAX_EXPANSIONS:
            failure = f"More than {MAX_EXPANSIONS} imports in one load"
            self._warn(current, f"Import failed: {path} - {failure}")
            return f"<!-- Import failed: {path} - {failure} -->"
        self.expansions += 1
        child = ImportNode(target)
        node.imports.append(child)
        inner = self.tree(read.text or "", os.path.dirname(target), target, depth + 1, child, chain | {key})
        return f"<!-- Imported from: {path} -->\n{inner}\n<!-- End of import from: {path} -->"

    def flat(self, content: str, base: str, current: str | None, node: ImportNode) -> str:
        files: list[tuple[str, str]] = []
        root = current or base
        self.processed.add(self.fs.real(root))
        self._collect(content, base, root, 0, files, node)
        return "\n\n".join(f"--- File: {p} ---\n{text.strip()}\n--- End of File: {p} ---" for p, text in files)

    def _collect(self, content: str, base: str, current: str, depth: int, files: list[tuple[str, str]], node: ImportNode) -> None:
        """Depth first, first encounter wins: the order a reader meets the files."""
        files.append((current, content))
        imports = _live_imports(content)
        if imports and depth >= self.max_depth:
            self._warn(current, f"Maximum import depth ({self.max_depth}) reached. Stopping import processing.")
            return
        for match in imports:
            target = self._target(match.path, base, current)
            if target is None or self.fs.real(target) in self.processed:
                continue
            read = self.fs.read(target)
            failure = None if read.missing else _failure(read, self.fs.max_bytes)
            if failure is not None:
                self._warn(current, f"Import failed: {match.path} - {failure}")
            if read.missing or failure is not None:
                continue
            self.processed.add(self.fs.real(target))
            child = ImportNode(target)
            node.imports.append(child)
            self._collect(read.text or "", os.path.dirname(target), target, depth + 1, files, child)

    def _target(self, path: str, base: str, current: str | None) -> str | None:
        """The file an import names, or None (with a warning) when it points outside the project."""
        if _URL.match(path) or not is_within(self.fs.real(_join(base, path)), self.root):
            self._warn(current, f"Import failed: {path} - {TRAVERSAL_MESSAGE}")
            return None
        return _join(base, path)

    def _warn(self, file: str | None, message: str) -> None:
        self.warnings.append(ImportWarning(Path(file) if file else None, message))


def _live_imports(content: str) -> list[ImportMatch]:
    """The imports outside code.

    Markdown is parsed only when some candidate could sit in code, and only as
    far as the last such candidate needs: parsing is most of the cost of a load.
    """
    imports = find_imports(content)
    doubtful = [m for m in imports if may_be_code_at(content, m.start)]
    if not doubtful:
        return imports
    regions = find_code_regions(content[: parse_extent(content, doubtful[-1].end)])
    return [m for m in imports if not in_regions(m.start, regions)]


def _failure(read: FileText, max_bytes: int) -> str | None:
    """Why an existing file cannot be imported: imports are all or nothing, unlike top-level files."""
    if read.error:
        return read.error
    if read.oversize:
        return f"File is larger than {format_bytes(max_bytes)}"
    if read.lossy:
        return "Not valid UTF-8 text"
    return None


def _join(base: str, path: str) -> str:
    """Like Node's path.resolve: an absolute path wins and ``..`` is folded lexically."""
    return os.path.normpath(os.path.join(base, path))
