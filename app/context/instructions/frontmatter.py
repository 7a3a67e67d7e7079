"""YAML frontmatter (``---`` … ``---`` at the top of a Markdown file)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n|$)")
_FENCE = "---"


class FrontmatterError(ValueError):
    """Frontmatter that cannot be used; ``line`` is 1-based within the file."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Frontmatter:
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    # Line of each top-level key (1-based, in the file), for messages about values.
    key_lines: dict[str, int] = field(default_factory=dict)


def split_frontmatter(text: str) -> Frontmatter:
    """The parsed header and the text after it; text without a header is all body."""
    lines = [m.group(0) for m in _LINE.finditer(text) if m.group(0)]
    if not lines or lines[0].rstrip() != _FENCE:
        return Frontmatter(body=text)
    for index in range(1, len(lines)):
        if lines[index].rstrip() == _FENCE:
            break
    else:
        raise FrontmatterError("frontmatter opened with '---' is never closed", 1)
    block = "".join(lines[1:index])
    import yaml  # here, not at import: most runs never read a file with frontmatter

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        context = getattr(exc, "context_mark", None)
        # An error found only at the end of the block (an unclosed bracket) is better shown where it began.
        if context is not None and (mark is None or mark.line >= index - 1):
            mark = context
        line = mark.line + 2 if mark is not None else 2  # +1 for 1-based, +1 for the opening '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"invalid YAML in frontmatter: {problem}", line) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter must be a mapping of keys to values", 2)
    return Frontmatter(data=data, body="".join(lines[index + 1 :]), key_lines=_key_lines(lines[1:index]))


def _key_lines(block_lines: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for offset, line in enumerate(block_lines):
        match = re.match(r"([A-Za-z_][\w-]*)\s*:", line)
        if match:
            found.setdefault(match.group(1), offset + 2)
    return found
