"""The one reader of ``---`` … ``---`` headers (memory files, rules, skills).

Until this module, three parsers gave three answers for the same text
(tests/unit/context/test_frontmatter.py records them). The one answer, and why:

- A BOM is dropped and CRLF is read as LF (in the body too): editors on Windows write both,
  and no one means them as content.
- The header opens only on the very first line, a ``---`` with nothing but spaces or tabs
  after it; it closes on the first such line below. A ``---`` further down the body is body.
- An empty header (``---`` then ``---``) is an empty mapping, not "no header": the file
  plainly has one. (Memory and skills used to say "no frontmatter".)
- An opened header that is never closed is an error at line 1, not silently body: the
  writer plainly meant a header, and reading it as body would inject the fields as text.
- The block is YAML, read with libyaml's safe loader (the pure-Python one only re-reads a
  block that fails, for its clearer message). YAML's answer is the answer (``n: 2024`` is a
  number, ``n: yes`` True; a tab after ``key:`` is accepted, as libyaml and YAML 1.2 do; the
  rules' pure-Python loader used to refuse it); the callers decide what a field may hold.
- A top-level key given twice is an error: YAML silently keeps the last, so of two
  ``description:`` lines one is lost without a word.
- A header that is not a mapping (a list, a bare word) is an error.

``strict`` raises the first error as a ``FrontmatterError``. Lenient mode (memory files,
which must never fail to list) keeps what can be read instead: an unclosed header leaves
the file all body, YAML that fails or is not a mapping is read line by line (``key: value``),
a repeated key keeps its last value; each error is in ``problems``. Either way the error
is one format: the message, the file (when given) and the 1-based line as an editor shows it.

A header of plain ``key: text`` lines and ``- item`` lists is read by
``app.context.plain_frontmatter`` without importing PyYAML (about 10 ms of a headless
start-up; measured there).
"""

from __future__ import annotations

import re
from dataclasses import field
from app.dataclass import dataclass
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

from app.context.plain_frontmatter import plain_frontmatter

_FENCE = re.compile(r"---[ \t]*")
_KEY = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:")
_LENIENT_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# A failing block is read again by the pure-Python loader for its message only when it is this small:
# that loader is some 20x slower, and a header is a few hundred bytes, a hostile one up to a whole file.
_REREAD_LIMIT = 64 * 1024


class FrontmatterProblem(Enum):
    UNCLOSED = "unclosed"
    YAML = "yaml"
    NOT_MAPPING = "not-mapping"
    DUPLICATE_KEY = "duplicate-key"


class FrontmatterError(ValueError):
    """A header that cannot be read as written; ``line`` (and ``column``) are 1-based in the file."""

    def __init__(
        self,
        kind: FrontmatterProblem,
        message: str,
        line: int,
        *,
        column: int | None = None,
        path: Path | str | None = None,
    ) -> None:
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.path = path
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}, line {self.line}" if self.path is not None else f"line {self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Frontmatter:
    """A text read as its ``---`` header (as a mapping) and the body after it."""

    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    # The raw text between the fences (LF line ends); None when the file has no header.
    block: str | None = None
    # Line of each top-level key (1-based, in the file), for messages about values.
    key_lines: dict[str, int] = field(default_factory=dict)
    # Lenient mode only: what was wrong, with what was still read kept in ``data``.
    problems: tuple[FrontmatterError, ...] = ()

    @property
    def has_header(self) -> bool:
        return self.block is not None


def read_frontmatter(text: str, *, path: Path | str | None = None, strict: bool = True) -> Frontmatter:
    """The header's fields and the text after it; text that does not open with ``---`` is all body."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    first, newline, rest = text.partition("\n")
    if not _FENCE.fullmatch(first):
        return Frontmatter(body=text)
    lines = rest.split("\n") if newline else []
    close = next((i for i, line in enumerate(lines) if _FENCE.fullmatch(line)), None)
    if close is None:
        error = FrontmatterError(FrontmatterProblem.UNCLOSED, "frontmatter opened with '---' is never closed", 1, path=path)
        if strict:
            raise error
        return Frontmatter(body=text, problems=(error,))
    return _read(lines[:close], "\n".join(lines[close + 1 :]), path, strict)


def read_block(block: str, *, path: Path | str | None = None, strict: bool = True) -> Frontmatter:
    """The fields of the text between the fences (LF line ends; its first line is line 2 of the file)."""
    return _read(block.split("\n"), "", path, strict)


def _read(block_lines: list[str], body: str, path: Path | str | None, strict: bool) -> Frontmatter:
    block = "\n".join(block_lines)
    key_lines, duplicate = _key_lines(block_lines, path)
    problems: list[FrontmatterError] = []
    try:
        data = _load(block, path)
    except FrontmatterError as error:
        if strict:
            raise
        problems.append(error)
        data = _line_by_line(block_lines)
    if duplicate is not None:
        if strict:
            raise duplicate
        problems.append(duplicate)
    return Frontmatter(data=data, body=body, block=block, key_lines=key_lines, problems=tuple(problems))


@cache
def _yaml():  # type: ignore[no-untyped-def]
    # Imported on the first header that needs it, not at start-up (see the module docstring).
    import yaml

    # The C loader is the same safe subset as yaml.safe_load, several times faster.
    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load(block: str, path: Path | str | None) -> dict[str, Any]:
    if not block.strip():
        return {}
    plain = plain_frontmatter(block)
    if plain is not None:
        return plain
    yaml, loader = _yaml()
    block_end = block.count("\n")  # 0-based line of the block's last line
    try:
        try:
            data = yaml.load(block, Loader=loader)
        except yaml.YAMLError:
            if len(block) > _REREAD_LIMIT:
                raise
            # Rare, so the pure-Python loader reads it again for its clearer words
            # ("expected ',' or ']', but got '<stream end>'" where libyaml says "did not find expected ',' or ']'").
            data = yaml.load(block, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        context = getattr(exc, "context_mark", None)
        # An error found only at the end of the block (an unclosed bracket) is better shown where it began.
        if context is not None and (mark is None or mark.line >= block_end):
            mark = context
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        # +1 for 1-based, +1 for the opening '---'.
        line, column = (mark.line + 2, mark.column + 1) if mark is not None else (2, None)
        raise FrontmatterError(
            FrontmatterProblem.YAML, f"invalid YAML in frontmatter: {problem}", line, column=column, path=path
        ) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(FrontmatterProblem.NOT_MAPPING, "frontmatter must be a mapping of keys to values", 2, path=path)
    return {str(key): value for key, value in data.items()}


def _key_lines(block_lines: list[str], path: Path | str | None) -> tuple[dict[str, int], FrontmatterError | None]:
    """Where each top-level key is, and the first key given twice (YAML would drop the earlier one)."""
    found: dict[str, int] = {}
    duplicate: FrontmatterError | None = None
    for offset, line in enumerate(block_lines):
        match = _KEY.match(line)
        if not match:
            continue
        key, line_no = match.group(1), offset + 2
        if key in found and duplicate is None:
            duplicate = FrontmatterError(
                FrontmatterProblem.DUPLICATE_KEY,
                f"'{key}' is given twice in the frontmatter (lines {found[key]} and {line_no})",
                line_no,
                path=path,
            )
        found.setdefault(key, line_no)
    return found, duplicate


def _line_by_line(block_lines: list[str]) -> dict[str, Any]:
    """``key: value`` lines of a header YAML refused, as text (a description with a colon in it, mostly)."""
    fields: dict[str, Any] = {}
    for line in block_lines:
        key, sep, value = line.partition(":")
        key = key.strip()
        if sep and _LENIENT_KEY.fullmatch(key):
            fields[key] = _unquote(value.strip()) or None
    return fields


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
