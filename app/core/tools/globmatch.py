"""Glob patterns for workspace paths, shared by the glob tool, grep's filter and permission rules.

``fnmatch`` lets ``*`` cross ``/`` and has no ``**``; ``pathlib`` cannot match a
string. So: ``*`` and ``?`` stay within one path segment, a ``**`` segment spans
any number of directories (including none), ``[...]`` is a character class and
``{a,b}`` lists alternatives. Dot-files are matched like any other name: hidden
config files are exactly what a coding agent often looks for.
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


def _translate(pattern: str) -> str:
    segments = pattern.split("/")
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            # Trailing "**" is "everything below"; elsewhere it is "zero or more directories".
            parts.append(".*" if last else "(?:[^/]+/)*")
        else:
            parts.append(_translate_segment(segment) + ("" if last else "/"))
    return "".join(parts)


def _translate_segment(segment: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = _class_end(segment, index)
            if end == -1:
                out.append(re.escape(char))
            else:
                out.append(_translate_class(segment[index + 1 : end]))
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


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
    body = body.replace("\\", "\\\\")
    if negated:
        return f"[^/{body}]"
    if body.startswith("^"):
        body = "\\" + body
    return f"[{body}]"
