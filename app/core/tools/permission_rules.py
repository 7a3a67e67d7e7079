"""Permission rules as written in settings: ``"edit"``, ``"edit(src/**)"``, ``"run_shell_command(git *)"``.

A rule names a tool and, optionally, a pattern for the call's ``subject()``:
a ``**``-aware path glob for file tools, an fnmatch pattern (``*`` spans
anything, ``/`` included) for shell commands. A malformed rule is reported and
skipped; one typo in a settings file must not stop the app.

MCP tools are named ``mcp__<server>__<tool>``: a rule naming ``mcp__<server>``
alone covers every tool of that server, ``mcp__<server>__<tool>`` just that one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from app.dataclass import dataclass
from fnmatch import fnmatchcase

from app.core.tools.globmatch import glob_match

_TOOL_NAME = re.compile(r"[A-Za-z_][\w.:-]*")
MCP_PREFIX = "mcp"
MCP_SEPARATOR = "__"


class RuleSyntaxError(ValueError):
    """A rule string that cannot be understood; the message says why."""


@dataclass(frozen=True)
class PermissionRule:
    """One rule as parsed: the tool it names, and the pattern a call's subject must match (if any)."""

    tool: str
    pattern: str | None = None  # None: every call of the tool

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def names_tool(self, tool_name: str) -> bool:
        if tool_name == self.tool:
            return True
        # "mcp__github" covers "mcp__github__create_issue", not "mcp__github2__x".
        return _is_mcp_server(self.tool) and tool_name.startswith(self.tool + MCP_SEPARATOR)

    def matches(self, tool_name: str, subject: str, *, command: bool) -> bool:
        if not self.names_tool(tool_name):
            return False
        if self.pattern is None:
            return True
        if command:
            return fnmatchcase(subject, self.pattern)
        return glob_match(self.pattern, subject)


def parse_rule(text: object) -> PermissionRule:
    if not isinstance(text, str):
        raise RuleSyntaxError(f"a rule must be a string, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise RuleSyntaxError("the rule is empty")
    open_at = text.find("(")
    if open_at == -1:
        if ")" in text:
            raise RuleSyntaxError(f"{text!r} has a ')' without a '('")
        return PermissionRule(_tool_name(text, text))
    if not text.endswith(")"):
        raise RuleSyntaxError(f"{text!r} does not end with ')'")
    pattern = text[open_at + 1 : -1]
    if not _balanced(pattern):
        raise RuleSyntaxError(f"{text!r} has unbalanced parentheses")
    if not pattern.strip():
        raise RuleSyntaxError(f"{text!r} has an empty pattern; write just the tool name to match every call")
    return PermissionRule(_tool_name(text[:open_at].strip(), text), pattern.strip())


def parse_rules(entries: Iterable[object], list_name: str) -> tuple[list[PermissionRule], list[str]]:
    """The rules that parse, and one warning for each that doesn't."""
    rules: list[PermissionRule] = []
    warnings: list[str] = []
    for entry in entries:
        try:
            rules.append(parse_rule(entry))
        except RuleSyntaxError as exc:
            warnings.append(f"ignored {list_name} rule {entry!r}: {exc}")
    return rules, warnings


def escape_pattern(text: str) -> str:
    """``text`` as an fnmatch pattern that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _tool_name(name: str, text: str) -> str:
    if not name:
        raise RuleSyntaxError(f"{text!r} has no tool name")
    if not _TOOL_NAME.fullmatch(name):
        raise RuleSyntaxError(f"{name!r} is not a tool name")
    return name


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _is_mcp_server(name: str) -> bool:
    """``mcp__<server>``: the MCP prefix and a server name, no tool part."""
    prefix, sep, server = name.partition(MCP_SEPARATOR)
    return prefix == MCP_PREFIX and bool(sep) and bool(server) and MCP_SEPARATOR not in server
