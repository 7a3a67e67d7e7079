"""Where the code is in a Markdown text: code blocks and code spans, as character ranges.

An ``@path`` inside code is an example, not an import. Blocks (fenced and
indented) come from markdown-it's block parser and its line map. Code spans are
found by scanning each inline token's source lines with CommonMark's backtick
rule, which yields offsets into the original text directly; markdown-it's own
inline tokens only carry normalised content that cannot be mapped back.
Skipping markdown-it's inline pass also makes the parse several times cheaper.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# markdown-it splits lines on CRLF, a lone CR or LF (its normalisation step), so we do too.
_LINE_BREAK = re.compile(r"\r\n?|\n")
_CODE_BLOCK_TOKENS = ("fence", "code_block")
_BLANK_LINE_AFTER = re.compile(r"(?:\r\n?|\n)[ \t]*(?:\r\n?|\n|$)")

# Parse results are kept for this many texts of up to this size (a few MiB at most).
_CACHED_TEXTS = 256
_CACHED_TEXT_CHARS = 16 * 1024

Region = tuple[int, int]


@cache
def _parser() -> MarkdownIt:
    # Imported on first use: most instruction files have no imports and never need it.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("inline")


def may_contain_code(text: str) -> bool:
    """False when no code region can exist, so parsing can be skipped.

    Spans and fences need a backtick or ``~~~``; an indented block needs a tab
    or four spaces somewhere on its line, whatever container it sits in.
    """
    return "`" in text or "~~~" in text or "\t" in text or "    " in text


def may_be_code_at(text: str, position: int) -> bool:
    """False when the character at ``position`` certainly lies outside code (a cheap, conservative test).

    Inside a fence, an opening fence precedes it; inside an indented block, its
    own line starts with a tab or four spaces (after any container markers);
    inside a span, a backtick lies on each side.
    """
    if text.find("```", 0, position) != -1 or text.find("~~~", 0, position) != -1:
        return True
    line_start = max(text.rfind("\n", 0, position), text.rfind("\r", 0, position)) + 1
    prefix = text[line_start:position]
    if "\t" in prefix or "    " in prefix:
        return True
    return text.find("`", 0, position) != -1 and text.find("`", position) != -1


def parse_extent(text: str, position: int) -> int:
    """Where parsing may stop and still classify everything up to ``position`` correctly.

    A line is code or not by what precedes it; only a code span can close
    later, and no span crosses a blank line. So the first blank line after
    ``position`` is far enough.
    """
    match = _BLANK_LINE_AFTER.search(text, position)
    return match.start() + 1 if match else len(text)


def find_code_regions(text: str) -> list[Region]:
    """Sorted, non-overlapping ``[start, end)`` ranges of code in ``text``."""
    if not may_contain_code(text):
        return []
    if len(text) <= _CACHED_TEXT_CHARS:
        return list(_cached_regions(text))
    return _parse_regions(text)


def clear_region_cache() -> None:
    _cached_regions.cache_clear()


@lru_cache(maxsize=_CACHED_TEXTS)
def _cached_regions(text: str) -> tuple[Region, ...]:
    # Instructions are reloaded often and rarely change; the parse is most of a load's cost.
    return tuple(_parse_regions(text))


def _parse_regions(text: str) -> list[Region]:
    starts = _line_starts(text)
    regions: list[Region] = []
    for token in _parser().parse(text):
        if token.map is None:
            continue
        first, last = token.map
        start, end = starts[first], starts[min(last, len(starts) - 1)]
        if token.type in _CODE_BLOCK_TOKENS:
            regions.append((start, end))
        elif token.type == "inline" and "`" in text[start:end]:
            regions += [(start + a, start + b) for a, b in code_spans(text[start:end])]
    regions.sort()
    return regions


def code_spans(text: str) -> list[Region]:
    """Code spans in one run of inline text (CommonMark: a backtick run closes at the next run of equal length)."""
    spans: list[Region] = []
    length = len(text)
    i = text.find("`")
    while i != -1:
        if _escaped(text, i):  # `\`` is a literal backtick; the run starts after it
            i += 1
            if i >= length or text[i] != "`":
                i = text.find("`", i)
                continue
        run_end = _run_end(text, i)
        closer = _closing_run(text, run_end, run_end - i)
        if closer is None:
            i = text.find("`", run_end)
        else:
            spans.append((i, closer))
            i = text.find("`", closer)
    return spans


def in_regions(position: int, regions: list[Region]) -> bool:
    index = bisect_right(regions, (position, float("inf"))) - 1
    return index >= 0 and regions[index][0] <= position < regions[index][1]


def _line_starts(text: str) -> list[int]:
    """Offset of every line's first character, plus ``len(text)`` as the end of the last line."""
    starts = [0]
    starts += [m.end() for m in _LINE_BREAK.finditer(text)]
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def _escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _run_end(text: str, start: int) -> int:
    end = start
    while end < len(text) and text[end] == "`":
        end += 1
    return end


def _closing_run(text: str, start: int, size: int) -> int | None:
    """End of the first backtick run of exactly ``size`` at or after ``start`` (backslashes do not escape inside code)."""
    i = text.find("`", start)
    while i != -1:
        end = _run_end(text, i)
        if end - i == size:
            return end
        i = text.find("`", end)
    return None
