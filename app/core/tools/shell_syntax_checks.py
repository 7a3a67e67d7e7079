"""Checks of the raw command line against the grammar's tree, for what the tree does not show.

tree-sitter-bash leaves some of bash's expansions as plain text: a backtick in an
unquoted heredoc body, a backtick inside ``${x:-...}`` (the default word is a bare
``word`` node), a ``$(...)`` nested in such a word. bash runs them all. Rather than
chase every place the grammar stops looking, the line itself is scanned: every
unescaped backtick and ``$(`` where bash would expand it — anywhere but inside single
quotes, ``$'...'``, comments and the body of a heredoc whose delimiter is quoted —
must be the start (or, for a backtick, the end) of a substitution the analysis
followed. One that is not makes the line unanalysable, and it hides the program.

A false alarm (``echo "a\\`b"`` is read right; an odd shape may not be) only means
the command asks; a miss would run a program nobody saw, so the scan leans that way.

Also here: line continuations inside a word (bash joins ``r\\<newline>m``, the
grammar splits it).
"""

from __future__ import annotations

import re
from typing import Any

# Nodes whose text bash never expands.
_LITERAL_NODES = frozenset({"raw_string", "comment", "ansi_c_string"})
_OPENERS = re.compile(rb"`|\$\(")


def literal_ranges(root: Any, source: bytes) -> list[tuple[int, int]]:
    """Byte ranges bash takes as they are: single quotes, comments, quoted-delimiter heredoc bodies."""
    ranges: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _LITERAL_NODES:
            ranges.append((node.start_byte, node.end_byte))
            continue
        if node.type == "heredoc_redirect":
            start = next((c for c in node.children if c.type == "heredoc_start"), None)
            if start is not None and re.search(rb"['\"\\]", source[start.start_byte : start.end_byte]):
                for child in node.children:
                    if child.type == "heredoc_body":
                        ranges.append((child.start_byte, child.end_byte))
        stack.extend(node.children)
    return ranges


def unseen_substitution(source: bytes, root: Any, followed: set[int]) -> int | None:
    """The byte offset of a backtick or ``$(`` bash would expand that the analysis did not follow."""
    if not _OPENERS.search(source):
        return None
    ranges = literal_ranges(root, source)
    for match in _OPENERS.finditer(source):
        at = match.start()
        if any(start <= at < end for start, end in ranges):
            continue
        backslashes = len(source[:at]) - len(source[:at].rstrip(b"\\"))
        if backslashes % 2:
            continue  # \` and \$( are literal
        if at not in followed:
            return at
    return None


def split_by_continuation(command: str, source: bytes, root: Any) -> bool:
    """bash joins ``r\\<newline>m`` into ``rm``; the grammar splits it. True when the line has one."""
    if "\\\n" not in command:
        return False
    for match in re.finditer(rb"(\\+)\n", source):
        if len(match.group(1)) % 2 == 0:
            continue  # an escaped backslash, then a real newline
        at = match.end(1) - 1
        leaf = root.descendant_for_byte_range(at, at + 1)
        if leaf is not None and leaf.type in ("raw_string", "string_content", "heredoc_body", "heredoc_content", "comment", "string"):
            continue
        before = source[at - 1 : at] if at > 0 else b" "
        after = source[at + 2 : at + 3] or b" "
        if before in (b" ", b"\t", b"\n") and after in (b" ", b"\t", b"\n"):
            continue  # between words: only joins two lines
        return True
    return False


_INDIRECT = re.compile(r"\$\{!\w+(\[[^\]]*\])?(?!\s*[*@]?\})")  # ${!name...}: but not ${!prefix*} / ${!a[@]}
_LISTING = re.compile(r"\$\{!\w+(\*|@|\[[@*]\])\}")
_SUBSCRIPT = re.compile(r"\$\{[!#]?\w+\[([^\]]*)\]")
_OFFSET = re.compile(r"\$\{#?\w+(\[[^\]]*\])?:(?![-=?+])([^}]*)\}")


def evaluating_expansion(text: str) -> str | None:
    """Why ``${...}`` makes bash evaluate a variable's value as code, or None.

    ``${x@P}`` expands the value as a prompt (``$(...)`` in it runs); ``${!x}`` follows the
    name in ``x``, and ``a[$(cmd)]`` there is evaluated; a subscript or a ``${x:off:len}``
    offset is arithmetic, where a variable holding ``a[$(cmd)]`` runs ``cmd``. Only plain
    numbers, ``@`` and ``*`` are taken as they are.
    """
    if "@P" in text:
        return "${...@P} expands a value as a prompt, which runs the substitutions in it"
    if text.startswith("${!") and not _LISTING.fullmatch(text):
        return "${!name} follows a name held in a variable, and evaluates any subscript in it"
    for match in _SUBSCRIPT.finditer(text):
        if not re.fullmatch(r"\s*(\d+|@|\*)?\s*", match.group(1)):
            return "an array subscript is arithmetic, which can run commands through a variable's value"
    offset = _OFFSET.match(text)
    if offset is not None and re.search(r"[A-Za-z_$`]", offset.group(2)):
        return "a ${x:offset:length} offset is arithmetic, which can run commands through a variable's value"
    return None
