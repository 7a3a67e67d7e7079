"""Glob patterns for workspace paths, shared by the glob tool, grep's filter and permission rules.

``fnmatch`` lets ``*`` cross ``/`` and has no ``**``; ``pathlib`` cannot match a
string. So: ``*`` and ``?`` stay within one path segment, a ``**`` segment spans
any number of directories (including none), ``[...]`` is a character class and
``{a,b}`` lists alternatives. Dot-files are matched like any other name: hidden
config files are exactly what a coding agent often looks for.

Why not a library: patterns come from files in the repository (a skill's ``paths:``,
permission rules) and run against every path a tool touches. wcmatch 10 (GLOBSTAR,
DOTGLOB, BRACE) backtracks exponentially on ``**/a/**/a/**/a/**/a/**/a/**/a/**/b``
against a path of 60 ``a`` segments: 31 s for one match on this project's machine.
This translator keeps such blocks atomic (see ``_translate``) and answers in well
under a millisecond; tests compare it with a plain recursive matcher on fuzzed input.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WILDCARDS = "*?[{"
# A pattern like {a,b}{c,d}{e,f}... grows fast; beyond this the braces are taken literally.
_MAX_ALTERNATIVES = 256


def glob_match(pattern: str, path: str) -> bool:
    """Whether the ``/``-separated ``path`` matches ``pattern`` as a whole."""
    return compile_glob(pattern).fullmatch(path) is not None


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> re.Pattern[str]:
    alternatives = expand_braces(normalize_pattern(pattern))
    return re.compile("|".join(f"(?:{_translate(alt)})" for alt in alternatives))


def normalize_pattern(pattern: str) -> str:
    """Drop a leading ``./`` and repeated slashes, which mean nothing to a match."""
    pattern = re.sub(r"/{2,}", "/", pattern.strip())
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern


def literal_prefix(pattern: str) -> str:
    """The leading directories of ``pattern`` that contain no wildcard, e.g. ``src/app`` for ``src/app/**/*.py``.

    Searching can start there instead of walking the whole tree.
    """
    segments = normalize_pattern(pattern).split("/")
    prefix: list[str] = []
    for segment in segments[:-1]:
        if any(char in segment for char in _WILDCARDS) or segment in ("", ".", ".."):
            break
        prefix.append(segment)
    return "/".join(prefix)


def expand_braces(pattern: str) -> list[str]:
    """``a{b,c}d`` -> ``[abd, acd]``, nesting included; unbalanced braces stay literal."""
    results = _expand(pattern)
    return results if len(results) <= _MAX_ALTERNATIVES else [pattern]


def _expand(pattern: str) -> list[str]:
    start = pattern.find("{")
    while start != -1:
        end, options = _brace_group(pattern, start)
        if end != -1 and len(options) > 1:
            head, tail = pattern[:start], pattern[end + 1 :]
            expanded: list[str] = []
            for option in options:
                expanded.extend(_expand(head + option + tail))
                if len(expanded) > _MAX_ALTERNATIVES:
                    return expanded
            return expanded
        start = pattern.find("{", start + 1)
    return [pattern]


def _brace_group(pattern: str, start: int) -> tuple[int, list[str]]:
    """The index of the ``}`` closing the ``{`` at ``start`` and its top-level options."""
    depth = 0
    options: list[str] = []
    piece_start = start + 1
    for index in range(start, len(pattern)):
        char = pattern[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                options.append(pattern[piece_start:index])
                return index, options
        elif char == "," and depth == 1:
            options.append(pattern[piece_start:index])
            piece_start = index + 1
    return -1, []


# One whole directory; any number of them is what a "**" segment that is not the last one matches.
_DIRECTORY = "(?:[^/]+/)"


def _translate(pattern: str) -> str:
    """The regex for one brace-free pattern.

    Between two ``**`` segments a block of segments is matched at its leftmost
    place and never retried (an atomic group), as are the fixed runs between two
    ``*`` inside a segment (see ``_translate_segment``): retrying every place is
    what made ``*a*a*a*b`` or ``**/a/**/a/**/b`` exponential on a long path. The
    leftmost place is the best one as long as the block cannot match an empty
    segment: whatever a later place would have left before it is then made of
    non-empty segments, which the next ``**`` takes. Other blocks keep backtracking.
    """
    segments = pattern.split("/")
    tokens: list[tuple[str, str] | None] = []  # (segment, its regex); None: a "**" that is not the last segment
    tail = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**" and last:
            tail = ".*"  # a trailing "**" is "everything below"
        elif segment == "**":
            if not (tokens and tokens[-1] is None):  # a/**/**/b is a/**/b
                tokens.append(None)
        else:
            tokens.append((segment, _translate_segment(segment) + ("" if last else "/")))
    parts: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token is not None:
            parts.append(token[1])
            index += 1
            continue
        end = index + 1
        while end < len(tokens) and tokens[end] is not None:
            end += 1
        block = [t for t in tokens[index + 1 : end] if t is not None]
        regex = "".join(r for _, r in block)
        followed = end < len(tokens) or bool(tail)  # by another "**": the block need not end the path
        if followed and all(segment.strip("*") for segment, _ in block):
            parts.append(f"(?>{_DIRECTORY}*?{regex})")
        else:
            parts.append(f"{_DIRECTORY}*{regex}")
        index = end
    return "".join(parts) + tail


def _translate_segment(segment: str) -> str:
    runs: list[list[str]] = [[]]  # the fixed runs between stars, each a list of one-character regexes
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            runs.append([])
        elif char == "?":
            runs[-1].append("[^/]")
        elif char == "[":
            end = _class_end(segment, index)
            if end == -1:
                runs[-1].append(re.escape(char))
            else:
                runs[-1].append(_translate_class(segment[index + 1 : end]))
                index = end
        else:
            runs[-1].append(re.escape(char))
        index += 1
    if len(runs) == 1:
        return "".join(runs[0])
    first, *middle, last = ("".join(run) for run in runs)
    # A run between two stars has a fixed length, so its leftmost place is always the best one.
    return first + "".join(f"(?>[^/]*?{run})" for run in middle) + "[^/]*" + last


def _class_end(segment: str, start: int) -> int:
    """The index of the ``]`` closing the class opened at ``start``, or -1."""
    index = start + 1
    if index < len(segment) and segment[index] in "!^":
        index += 1
    if index < len(segment) and segment[index] == "]":
        index += 1  # a "]" right after the opening is a member, not the end
    return segment.find("]", index)


def _translate_class(body: str) -> str:
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    body = "".join(_class_char(body, index) for index in range(len(body)))
    return f"[^/{body}]" if negated else f"[{body}]"


def _class_char(body: str, index: int) -> str:
    # Everything but a range dash is escaped, so "[", "&&" or "~~" in a glob never reach re as set syntax.
    char = body[index]
    is_range = char == "-" and 0 < index < len(body) - 1 and "-" not in (body[index - 1], body[index + 1])
    return char if is_range else re.escape(char)
