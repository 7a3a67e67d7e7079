"""The entries inside one memory's body.

A memory usually says one thing, but a body may list several facts as
top-level bullets; forgetting one of them should keep the others. A body
with two or more top-level bullets holds one entry per bullet (with its
indented continuation lines); any other body is a single entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_BULLET = re.compile(r"^[-*+][ \t]+(\S.*)$")


@dataclass(frozen=True)
class BodyEntry:
    summary: str  # the bullet's first line
    text: str  # the bullet with its continuation lines
    first_line: int
    end_line: int  # exclusive


def bullet_entries(body: str) -> list[BodyEntry]:
    """The top-level bullets of ``body``; fewer than two means the body is one entry."""
    lines = body.split("\n")
    spans: list[list[int]] = []
    for number, line in enumerate(lines):
        if _BULLET.match(line):
            spans.append([number, number + 1])
        elif spans and line.strip() and line[:1] in " \t" and spans[-1][1] == number:
            spans[-1][1] = number + 1
    if len(spans) < 2:
        return []
    return [
        BodyEntry(
            summary=_BULLET.match(lines[start]).group(1).strip(),  # type: ignore[union-attr]
            text="\n".join(lines[start:end]),
            first_line=start,
            end_line=end,
        )
        for start, end in spans
    ]


def remove_entries(body: str, summaries: Iterable[str]) -> tuple[str, int, int]:
    """``body`` without the bullets whose summary matches one of ``summaries`` (ignoring case).

    Returns the new body, how many bullets were removed and how many remain.
    """
    wanted = {summary.strip().lower() for summary in summaries}
    entries = bullet_entries(body)
    doomed = [entry for entry in entries if entry.summary.lower() in wanted]
    drop = {number for entry in doomed for number in range(entry.first_line, entry.end_line)}
    kept_lines = [line for number, line in enumerate(body.split("\n")) if number not in drop]
    new_body = re.sub(r"\n{3,}", "\n\n", "\n".join(kept_lines)).strip()
    return new_body, len(doomed), len(entries) - len(doomed)
