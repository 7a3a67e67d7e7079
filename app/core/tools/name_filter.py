"""The part of a glob that ripgrep can check by itself: the file name, as ripgrep file-type globs.

A wide ``glob`` spent most of its Python time matching 30,000 listed paths against the pattern's
regular expression (about 12 ms of 68 ms; issue 23). When ripgrep filters by name while it walks,
the listing that comes back is smaller, and for the shapes models send most (``**/*.py``,
``src/**/*.ts``, ``*.md``, ``**/package.json``, ``.github/**``) it is already the answer.

The filter is a ripgrep *file type* (``--type-add``/``--type``), not a ``--glob``: a ``--glob`` that
matches a file overrides ``.gitignore`` (``rg --files -g '*.log'`` lists an ignored ``debug.log``),
a type is applied only to files the ignore rules kept. A type match does let a hidden file through,
which ``glob`` lists anyway and ``grep_search`` then excludes with ``--glob=!.*``.

Only names made of word characters, ``.``, ``-`` and ``*`` (after our own brace expansion) are
handed over: there ripgrep's glob dialect and ``globmatch`` agree. ``?`` is not among them (ripgrep
matches one byte, ``globmatch`` one character: ``caf?.txt`` and ``café.txt``), nor are classes
or a backslash (an escape for ripgrep, a plain character for ``globmatch``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.core.tools.globmatch import expand_braces

# Names ripgrep matches exactly as globmatch does (see above). Kept as text: ``re`` compiles it on
# first use (and caches it), which keeps the work off start-up.
_PLAIN_NAME = r"[\w.*-]+"


class NameFilter:
    """What ripgrep is asked to filter. A plain class: a dataclass costs start-up time (issue 23)."""

    __slots__ = ("names", "max_depth", "exact")

    def __init__(self, *, names: tuple[str, ...], max_depth: int | None, exact: bool) -> None:
        # ripgrep type globs for the file name; empty: every name.
        self.names = names
        # 1: only files directly in the directory listed (the pattern has a single segment).
        self.max_depth = max_depth
        # ripgrep's listing is the answer as it is; otherwise a superset, matched again in Python.
        self.exact = exact

    def __repr__(self) -> str:
        return f"NameFilter(names={self.names!r}, max_depth={self.max_depth!r}, exact={self.exact!r})"


_EVERYTHING = NameFilter(names=(), max_depth=None, exact=True)
_NOTHING_KNOWN = NameFilter(names=(), max_depth=None, exact=False)


def name_filter(pattern: str) -> NameFilter:
    """What ripgrep can filter for ``pattern``, a glob relative to the directory ripgrep lists."""
    if pattern == "**":
        return _EVERYTHING
    alternatives = [alternative.split("/") for alternative in expand_braces(pattern)]
    lasts = {segments[-1] for segments in alternatives}
    # A last segment of stars alone ("*", "**/*") takes every name: no type is needed.
    any_name = any(last and not last.strip("*") for last in lasts)
    if not any_name and not all(re.fullmatch(_PLAIN_NAME, last) for last in lasts):
        return _NOTHING_KNOWN  # e.g. "x?.py", "[ab].c", "src/": matched in Python
    names = () if any_name else _type_globs(lasts)
    if all(len(segments) == 1 for segments in alternatives):
        return NameFilter(names=names, max_depth=1, exact=True)
    deep = all(len(segments) == 2 and segments[0] == "**" for segments in alternatives)
    return NameFilter(names=names, max_depth=None, exact=deep)


def plain_names(name_glob: str) -> tuple[str, ...] | None:
    """``name_glob`` (a glob for a file name, no ``/``) as ripgrep type globs, or None if it cannot be one."""
    if "/" in name_glob:
        return None
    alternatives = expand_braces(name_glob)
    if all(re.fullmatch(_PLAIN_NAME, name) for name in alternatives):
        return _type_globs(alternatives)
    return None


def _type_globs(names: Iterable[str]) -> tuple[str, ...]:
    # "a**b" is "a*b" in globmatch; give ripgrep the plain form rather than rely on its reading of "**".
    return tuple(sorted({re.sub(r"\*{2,}", "*", name) for name in names}))
