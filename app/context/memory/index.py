"""Rebuilding a scope's MEMORY.md from its memory files, without destroying what a person wrote.

A new index is one pointer line per memory, within 200 lines and 25,000
characters. When it must be cut, the oldest memories (by modification time)
are the ones left out, never the newest, and a warning line says so.

An index that exists is merged, never regenerated: every line that is not a
link (a note, a heading, a blank line) stays where it is, byte for byte; a link
to a memory that is missing stays too (the memory panel flags it); a link line
in the program's own format is updated when its memory's title or description
changed; memories no line links to get a line at the end. The only line
removed is the one for a file the program itself just removed (a forget, a
dream's merge). An index over the limits is never cut: the prompt loads its
head with a warning, and new memories, whose lines land below that head, are
counted and named in it and still recalled by content (see the end of this module).

The team index is committed, so it must come out byte-identical on every
machine: lines sort by code unit, memories with the same description share one
line, an unchanged index is not rewritten (no empty commits), and its root must
not be a symlink or lead outside the repository.

Its lines, first: one pointer line of a MEMORY.md index is ``- [<title>](<encodedRelPath>) — <description>``.

Titles and descriptions come from files anyone (or any model) may have written,
and team indexes are committed and read into every collaborator's prompt, so
fields are cleaned of anything that could smuggle instructions or break the
Markdown, and link targets are percent-encoded (decoding gives back the exact
relative path, so the link always leads to the real file).

Last, the index as it is shown in the system prompt: within 200 lines and
25,000 characters, with a warning when it had to be cut.

An index past its limits is never rewritten (a person may have written it), so
the links the rebuild appends for new memories land below the loaded head.
Those memories stay reachable: recall ranks every memory file by its content,
not by the index, and the warning (here and in the memory panel) says how many
memories are linked only below the head and names the first few.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import field
from app.dataclass import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from app.context.memory.paths import MemoryScope
from app.context.memory.paths import MemoryPaths, check_team_root
from app.context.memory.paths import EMPTY_INDEX_TEXT, read_text_no_follow
from app.context.memory.textunits import truncate_with_ellipsis, utf16_len, utf16_prefix, utf16_sort_key
from app.fsutil import atomic_write_text
from app.paths import ensure_private_dir

# The listing loads with the first rebuild: every session reads the index into its prompt, but
# one with no memory folder never lists one.
if TYPE_CHECKING:
    from app.context.memory.entry import MemoryEntry


MAX_INDEX_LINE_CHARS = 150
MAX_INDEX_FIELD_CHARS = 120
MAX_INDEX_PATH_CODE_POINTS = 120
INDEX_SEPARATOR = " \u2014 "  # space, em dash, space

_CONTROL = re.compile(r"[\u0000-\u001f\u007f-\u009f]")
# Zero-width characters, bidirectional overrides and isolates, the byte-order mark.
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_WHITESPACE = re.compile(r"\s+")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-/")


def sanitize_index_field(value: str) -> str:
    """A title or description made safe for one index line, in six steps (the order matters)."""
    value = _CONTROL.sub(" ", value)
    value = _INVISIBLE.sub("", value)
    value = value.replace("`", "'")
    value = value.replace("](", "] (")
    value = _WHITESPACE.sub(" ", value).strip()
    return truncate_with_ellipsis(value, MAX_INDEX_FIELD_CHARS)


def clean_index_text(line: str) -> str:
    """A whole index line read back from disk, without control or invisible characters (the size limits of
    the whole index still apply when it enters the prompt)."""
    return _INVISIBLE.sub("", _CONTROL.sub(" ", line))


def encode_index_path_target(rel_path: str) -> str:
    """The first 120 code points of ``rel_path``, every byte outside ``[A-Za-z0-9._~-/]``
    written as ``%XX`` (upper case) of its UTF-8 encoding."""
    pieces: list[str] = []
    for char in rel_path[:MAX_INDEX_PATH_CODE_POINTS]:
        if char in _UNRESERVED:
            pieces.append(char)
        else:
            pieces.extend(f"%{byte:02X}" for byte in _utf8(char))
    return "".join(pieces)


def index_line(title: str, rel_path: str, description: str, fallback: str) -> str:
    """The full line before the length limit; ``fallback`` (the type) stands in for an empty field."""
    shown_title = sanitize_index_field(title) or fallback
    shown_description = sanitize_index_field(description) or fallback
    return f"- [{shown_title}]({encode_index_path_target(rel_path)}){INDEX_SEPARATOR}{shown_description}"


def limit_index_line(line: str) -> str:
    return truncate_with_ellipsis(line, MAX_INDEX_LINE_CHARS)


def _utf8(char: str) -> bytes:
    # File names that are not valid UTF-8 reach Python as lone surrogates
    # (surrogateescape); encoding them back gives the file's real bytes.
    try:
        return char.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return char.encode("utf-8", "surrogatepass")


MAX_INDEX_LINES = 200
MAX_INDEX_BYTES = 25_000  # measured in UTF-16 code units, like every index limit
INDEX_CUT_WARNING = (
    "\n\n> WARNING: MEMORY.md is too large; only part of it was written. "
    "Keep index entries concise and move detail into topic files."
)
_TRAILING_PUNCTUATION = re.compile(r"[.,;:!?)\]}'\"`]+$")


@dataclass(frozen=True)
class IndexLine:
    """One pointer line of a new index, with the memories it points to and the newest one's time."""

    text: str
    mtime: float  # the newest of the memories the line points to
    paths: tuple[Path, ...] = ()


@dataclass(frozen=True)
class IndexText:
    """A new index's text within the limits, and the lines that had to be left out."""

    text: str
    kept: int
    dropped: tuple[IndexLine, ...] = ()

    @property
    def cut(self) -> bool:
        return bool(self.dropped)


@dataclass(frozen=True)
class IndexWrite:
    """What rebuilding a scope's MEMORY.md did: the file, its index, and whether it was written."""

    path: Path
    index: IndexText
    written: bool  # False when the file already held exactly this text
    entries: tuple[MemoryEntry, ...] = field(default=(), repr=False)


def index_lines(entries: Sequence[MemoryEntry]) -> list[IndexLine]:
    """One line per usable memory, in relative-path (code-unit) order."""
    usable = sorted((e for e in entries if e.usable), key=lambda e: utf16_sort_key(e.rel_path))
    return [
        IndexLine(limit_index_line(_line_for(entry)), entry.mtime, (entry.path,))
        for entry in usable
    ]


def team_index_lines(entries: Sequence[MemoryEntry]) -> list[IndexLine]:
    """Like index_lines, but memories with the same description share their first one's line."""
    usable = sorted((e for e in entries if e.usable), key=lambda e: utf16_sort_key(e.rel_path))
    groups: dict[str, list[MemoryEntry]] = {}
    order: list[list[MemoryEntry]] = []
    for entry in usable:
        key = normalized_description(entry.description)
        if key and key in groups:
            groups[key].append(entry)
            continue
        group = [entry]
        order.append(group)
        if key:
            groups[key] = group
    lines = []
    for group in order:
        text = _line_for(group[0])
        if len(group) > 1:
            text += f" (also: {', '.join(encode_index_path_target(e.rel_path) for e in group[1:])})"
        lines.append(IndexLine(limit_index_line(text), max(e.mtime for e in group), tuple(e.path for e in group)))
    return lines


def normalized_description(description: str) -> str:
    """The grouping key: lower case, whitespace collapsed and trimmed, trailing punctuation dropped."""
    collapsed = " ".join(description.lower().split())
    return _TRAILING_PUNCTUATION.sub("", collapsed)


def assemble_index(lines: Sequence[IndexLine]) -> IndexText:
    """The index text within the line and size limits, dropping the oldest lines first."""
    kept = list(lines)
    dropped: list[IndexLine] = []
    size = _joined_size(kept)
    if len(kept) > MAX_INDEX_LINES or size > MAX_INDEX_BYTES:
        # Oldest first; of two equally old, the later line goes first.
        positions = sorted(range(len(kept)), key=lambda i: (kept[i].mtime, -i))
        removed: set[int] = set()
        count = len(kept)
        for position in positions:
            if count <= MAX_INDEX_LINES and size <= MAX_INDEX_BYTES:
                break
            removed.add(position)
            count -= 1
            size -= utf16_len(kept[position].text) + (1 if count else 0)
        dropped = [line for i, line in enumerate(kept) if i in removed]
        kept = [line for i, line in enumerate(kept) if i not in removed]
    text = "\n".join(line.text for line in kept)
    if dropped:
        text += INDEX_CUT_WARNING
    return IndexText(text=text, kept=len(kept), dropped=tuple(dropped))


def index_file_text(index: IndexText) -> str:
    """What goes in the file: the index and a final newline (nothing at all when empty)."""
    return index.text + "\n" if index.text else ""


_LINK_TARGET = re.compile(r"\]\(([^()\s]+)\)")
_ALSO = re.compile(r" \(also: ([^()]*)\)")
# A line in the program's own format: "- [title](target) — description".
_PROGRAM_LINE = re.compile(r"^- \[[^\n]*\]\([^()\s]+\)" + INDEX_SEPARATOR + ".*$")
_OLD_CUT_WARNING = INDEX_CUT_WARNING.strip()


def link_targets(line: str) -> list[str]:
    """The relative paths a line links to (decoded), the first one first; [] for any other line."""
    stripped = line.lstrip()
    if not stripped.startswith(("- ", "* ", "+ ")):
        return []
    found = [match.group(1) for match in _LINK_TARGET.finditer(line)][:1]
    also = _ALSO.search(line)
    if found and also:
        found += [part.strip() for part in also.group(1).split(",") if part.strip()]
    return [unquote(target, errors="surrogateescape") for target in found]


def merge_index(existing: str, lines: Sequence[IndexLine], root: Path, removed: Iterable[str] = ()) -> str:
    """``existing`` with link lines added and updated (see the module docstring); ``removed`` holds
    the relative paths of files the program removed, whose lines go too."""
    by_path: dict[str, IndexLine] = {}
    for line in lines:
        for path in line.paths:
            by_path[Path(path).relative_to(root).as_posix() if Path(path).is_absolute() else str(path)] = line
    gone = set(removed)
    out: list[str] = []
    linked: set[int] = set()  # ids of generated lines some existing line already stands for
    for text in existing.split("\n"):
        targets = link_targets(text)
        if not targets:
            if text.strip() != _OLD_CUT_WARNING:  # the cut warning older versions wrote is theirs to remove
                out.append(text)
            continue
        if targets[0] in gone and _PROGRAM_LINE.match(text):
            continue
        # A line stands for the memory it links to first: one whose first link leads nowhere is
        # dangling and kept as written, even when an "(also: ...)" part names a file that exists
        # (it used to be taken for a duplicate of that file's line and dropped).
        fresh = by_path.get(targets[0])
        if fresh is None:
            out.append(text)  # a missing memory, or a hand-made link: kept as written
            continue
        if id(fresh) in linked and _PROGRAM_LINE.match(text):
            continue  # a duplicate of a line already kept
        linked.add(id(fresh))
        out.append(fresh.text if _PROGRAM_LINE.match(text) else text)
    missing = [line for line in lines if id(line) not in linked]
    if missing:
        while out and out[-1] == "":
            out.pop()
        out.extend(line.text for line in missing)
        out.append("")
    return "\n".join(out)


def index_problems(paths: MemoryPaths, scope: MemoryScope | str) -> list[str]:
    """What the memory panel flags about a scope's MEMORY.md: links to missing files, size past the limits."""

    scope = MemoryScope(scope)
    root, target = paths.root(scope), paths.index_file(scope)
    text = read_text_no_follow(target)
    if not text:
        return []
    problems = []
    for number, line in enumerate(text.split("\n"), 1):
        for rel in link_targets(line)[:1]:
            if not os.path.lexists(root / rel):
                problems.append(f"{target.name} line {number} links to {rel}, which does not exist (dangling: the line is kept as written; edit or remove it)")
    trimmed = text.strip()
    count, size = len(trimmed.split("\n")), utf16_len(trimmed)
    if count > MAX_INDEX_LINES or size > MAX_INDEX_BYTES:
        reason = index_cut_reason(count, size, over_lines=count > MAX_INDEX_LINES, over_size=size > MAX_INDEX_BYTES)
        problems.append(f"{target.name} is {reason}: only its head is loaded into the prompt; move detail into topic files")
        below = links_below_head(text)
        if below:
            problems.append(past_head_note(below))
    return problems


# An index is merged from its whole text (the prompt reads only its head, MAX_MEMORY_FILE_BYTES at
# most): read with that cap, the 6.3 MB index of 50,000 memories compared unequal to its own merge
# on every start and was rewritten cut after 256 KB, with whatever a person wrote below the cut.
MAX_MERGED_INDEX_BYTES = 64 * 1024 * 1024


def rebuild_index(paths: MemoryPaths, scope: MemoryScope | str, *, removed: Iterable[Path | str] = ()) -> IndexWrite:
    """Bring the scope's MEMORY.md in step with its files (merging into an existing one). ``removed``:
    files the program itself just deleted. A team root that fails the security check raises
    TeamMemoryRootSecurityError before anything is read."""
    scope = MemoryScope(scope)
    root = paths.root(scope)
    if scope is MemoryScope.TEAM:
        check_team_root(paths.workspace_root, root)
    from app.context.memory.scan import scan_scope

    return write_index(paths, scope, scan_scope(root, scope), removed=removed)


def write_index(paths: MemoryPaths, scope: MemoryScope, entries: Sequence[MemoryEntry], *, removed: Iterable[Path | str] = ()) -> IndexWrite:
    """rebuild_index for the scope's ``entries`` as just listed (the team root already checked)."""
    root = paths.root(scope)
    lines = team_index_lines(entries) if scope is MemoryScope.TEAM else index_lines(entries)
    target = paths.index_file(scope)
    try:
        size = os.lstat(target).st_size
    except OSError:
        size = 0
    if size > MAX_MERGED_INDEX_BYTES:
        # Merging a cut copy would drop what a person wrote past the cut: left alone, as any
        # index over its limits is (the prompt loads its head with a warning).
        return IndexWrite(target, IndexText(text="", kept=len(lines)), written=False, entries=tuple(entries))
    existing = read_text_no_follow(target, MAX_MERGED_INDEX_BYTES)
    if existing is not None and existing.strip():
        gone = [os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/") for p in removed]
        text = merge_index(existing, lines, root, gone)
        index = IndexText(text=text.rstrip("\n"), kept=len(lines))
        if text == existing:
            return IndexWrite(target, index, written=False, entries=tuple(entries))
    else:
        index = assemble_index(lines)
        text = index_file_text(index)
        if existing == text:
            return IndexWrite(target, index, written=False, entries=tuple(entries))
    if scope is not MemoryScope.TEAM:
        ensure_private_dir(root)
    # atomic_write_text renames over the index, so a symlink planted in its place is
    # replaced, never written through.
    atomic_write_text(target, text)
    return IndexWrite(target, index, written=True, entries=tuple(entries))


def _line_for(entry: MemoryEntry) -> str:
    fallback = entry.type.value if entry.type else ""
    return index_line(entry.title, entry.rel_path, entry.description, fallback)


def _joined_size(lines: Sequence[IndexLine]) -> int:
    if not lines:
        return 0
    return sum(utf16_len(line.text) for line in lines) + len(lines) - 1



def index_for_prompt(content: str) -> str:
    """The trimmed index, cut to the limits (at a line end) with a warning, or the empty-index sentence."""
    trimmed = content.strip()
    if not trimmed:
        return EMPTY_INDEX_TEXT
    lines = trimmed.split("\n")
    size = utf16_len(trimmed)
    over_lines, over_size = len(lines) > MAX_INDEX_LINES, size > MAX_INDEX_BYTES
    if not over_lines and not over_size:
        return trimmed
    text = loaded_head(trimmed)
    reason = index_cut_reason(len(lines), size, over_lines=over_lines, over_size=over_size)
    warning = (
        f"{text}\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files."
    )
    below = links_below_head(trimmed)
    return f"{warning}\n> {past_head_note(below)}" if below else warning


def loaded_head(trimmed: str) -> str:
    """The part of a (trimmed) index the prompt loads: 200 lines, then 25,000 code units at a line end."""
    lines = trimmed.split("\n")
    text = "\n".join(lines[:MAX_INDEX_LINES]) if len(lines) > MAX_INDEX_LINES else trimmed
    if utf16_len(text) > MAX_INDEX_BYTES:
        head = utf16_prefix(text, MAX_INDEX_BYTES)
        cut = head.rfind("\n")
        text = head[:cut] if cut > 0 else head
    return text


def links_below_head(content: str) -> list[str]:
    """The memories (relative paths) an index links to only below the part the prompt loads."""
    trimmed = content.strip()
    head = loaded_head(trimmed)
    if len(head) == len(trimmed):
        return []
    in_head = {target for line in head.split("\n") for target in link_targets(line)}
    below: dict[str, None] = {}
    for line in trimmed[len(head):].split("\n"):
        for target in link_targets(line):
            if target not in in_head:
                below[target] = None
    return list(below)


MAX_NAMED_BELOW = 3


def past_head_note(below: list[str]) -> str:
    """What the prompt and the panel say about memories linked only below the loaded head."""
    named = ", ".join(below[:MAX_NAMED_BELOW]) + (f" and {len(below) - MAX_NAMED_BELOW} more" if len(below) > MAX_NAMED_BELOW else "")
    count = f"{len(below)} memory is" if len(below) == 1 else f"{len(below)} memories are"
    return f"{count} linked only below the loaded part ({named}); recall still finds them by their content."


def index_cut_reason(line_count: int, size: int, *, over_lines: bool, over_size: bool) -> str:
    kilobytes = _one_decimal(size / 1024)
    if over_lines and over_size:
        return f"{line_count} lines and {kilobytes} KB"
    if over_lines:
        return f"{line_count} lines (limit: {MAX_INDEX_LINES})"
    return f"{kilobytes} KB (limit: {_one_decimal(MAX_INDEX_BYTES / 1024)} KB) \u2014 index entries are too long"


def _one_decimal(value: float) -> str:
    # JavaScript's toFixed rounds an exact half up (0.25 -> "0.3"); Python's format rounds to even.
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
