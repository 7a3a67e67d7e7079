"""Whether a tool call may run, must be approved, or is refused.

Precedence, strongest first:
1. deny rules                          -> DENY
2. plan mode and a tool that isn't READ -> DENY
3. ask rules                           -> ASK (ALLOW in yolo mode)
4. allow rules and session "always"    -> ALLOW
5. the mode's default: READ is allowed everywhere; EDIT asks in default mode
   and is allowed in auto-edit; EXECUTE asks unless in yolo; yolo allows all.

Shell commands are judged by the simple commands inside them, so an allow
rule for ``git *`` does not let ``git status && rm -rf ~`` through: deny and
ask rules fire when the whole line or any part matches, allow rules only when
every part (including ``$(...)`` bodies) matches some allow rule and no part
writes a file through a redirection.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from app.core.tools.base import Tool, ToolKind
from app.core.tools.permission_rules import PermissionRule, escape_pattern, parse_rules
from app.core.tools.shell_syntax import ShellScript, SimpleCommand, parse_shell


class ApprovalMode(str, Enum):
    DEFAULT = "default"
    AUTO_EDIT = "auto-edit"
    YOLO = "yolo"
    PLAN = "plan"


class PermissionDecision(str, Enum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


# Redirection targets that write nothing anyone cares about.
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


@dataclass
class _Call:
    """One tool call as the rules see it."""

    tool_name: str
    subject: str
    script: ShellScript | None  # set for shell commands only

    @property
    def is_command(self) -> bool:
        return self.script is not None


@dataclass
class PermissionPolicy:
    """Rules from settings plus what the person said "always" to during this session.

    ``mode`` may be changed at any time (e.g. the mode toggle). ``root`` lets path
    rules match absolute paths the model sends; without it they only see the
    path as given.
    """

    allow: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    mode: ApprovalMode = ApprovalMode.DEFAULT
    root: Path | None = None
    warnings: list[str] = field(init=False, default_factory=list)
    session_rules: list[PermissionRule] = field(init=False, default_factory=list)
    # Rules that ask even in yolo mode and are never turned into "always" (writes to team memory).
    always_ask: list[PermissionRule] = field(init=False, default_factory=list)
    # Allow rules the app adds itself (writes into the project and user memory roots).
    extra_allow: list[PermissionRule] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.mode = _coerce_mode(self.mode, self.warnings)
        self._allow_rules = self._parse(self.allow, "allow")
        self._ask_rules = self._parse(self.ask, "ask")
        self._deny_rules = self._parse(self.deny, "deny")

    def _parse(self, entries: list[str], list_name: str) -> list[PermissionRule]:
        rules, warnings = parse_rules(entries, list_name)
        self.warnings.extend(warnings)
        return rules

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[PermissionDecision, str]:
        """The decision and a short reason a person can read."""
        call = self._call(tool, args)
        rule = _any_part_matches(self._deny_rules, call)
        if rule is not None:
            return PermissionDecision.DENY, f"denied by rule {rule}"
        if self.mode is ApprovalMode.PLAN and tool.kind is not ToolKind.READ:
            return PermissionDecision.DENY, "plan mode: only read-only tools"
        rule = _any_part_matches(self.always_ask, call)
        if rule is not None:
            return PermissionDecision.ASK, f"rule {rule} always asks, in every mode"
        rule = _any_part_matches(self._ask_rules, call)
        if rule is not None:
            if self.mode is ApprovalMode.YOLO:
                return PermissionDecision.ALLOW, f"yolo mode (rule {rule} would ask)"
            return PermissionDecision.ASK, f"rule {rule} asks for approval"
        # One pool: a command's parts may be allowed partly by settings, partly by "always".
        rule = _every_part_matches(self._allow_rules + self.session_rules + self.extra_allow, call)
        if rule is not None:
            if rule in self._allow_rules:
                return PermissionDecision.ALLOW, f"allowed by rule {rule}"
            if rule in self.extra_allow:
                return PermissionDecision.ALLOW, f"allowed ({rule})"
            return PermissionDecision.ALLOW, f"allowed for this session ({rule})"
        return _mode_default(self.mode, tool.kind)

    def allow_for_session(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        """Remember an "always" answer; returns the rules added (to tell the person)."""
        added: list[str] = []
        for rule in session_rules_for(tool, self._call(tool, args)):
            if rule not in self.session_rules:
                self.session_rules.append(rule)
                added.append(str(rule))
        return added

    def _call(self, tool: Tool, args: dict[str, Any]) -> _Call:
        subject = tool.subject(args)
        if tool.kind is ToolKind.EXECUTE:
            return _Call(tool.name, subject, parse_shell(subject))
        return _Call(tool.name, _root_relative(subject, self.root), None)


def session_rules_for(tool: Tool, call: _Call) -> list[PermissionRule]:
    """For the shell, the programs the command runs (``git *`` and bare ``git``); otherwise the tool."""
    if call.script is None:
        return [PermissionRule(tool.name)]
    if not call.script.ok:
        return []  # allow rules never apply to a command that cannot be analysed
    rules: list[PermissionRule] = []
    for simple in call.script.all_commands():
        for rule in _program_rules(tool.name, simple):
            if rule not in rules:
                rules.append(rule)
    return rules


def _program_rules(tool_name: str, simple: SimpleCommand) -> list[PermissionRule]:
    if simple.assignments or not simple.words:
        # Variables can change what a program does; only this exact invocation is remembered.
        return [PermissionRule(tool_name, escape_pattern(simple.text))] if simple.words else []
    program = escape_pattern(simple.program)
    return [PermissionRule(tool_name, f"{program} *"), PermissionRule(tool_name, program)]


def _any_part_matches(rules: list[PermissionRule], call: _Call) -> PermissionRule | None:
    """The first rule matching the call, or for a command, the whole line or any part of it."""
    subjects = [call.subject]
    if call.script is not None:
        for simple in call.script.all_commands():
            subjects.extend([simple.text, " ".join(simple.argv)])
    for rule in rules:
        if any(rule.matches(call.tool_name, subject, command=call.is_command) for subject in subjects):
            return rule
    return None


def _every_part_matches(rules: list[PermissionRule], call: _Call) -> PermissionRule | None:
    """A rule that allows the call; for a command, every part must be allowed by some rule."""
    if call.script is None:
        return next((rule for rule in rules if rule.matches(call.tool_name, call.subject, command=False)), None)
    parts = list(call.script.all_commands())
    if not call.script.ok or not parts or any(_writes_file(simple) for simple in parts):
        return None
    first: PermissionRule | None = None
    for simple in parts:
        rule = next((rule for rule in rules if rule.matches(call.tool_name, simple.text, command=True)), None)
        if rule is None:
            return None
        first = first or rule
    return first


def _writes_file(simple: SimpleCommand) -> bool:
    for redirect in simple.redirects:
        if redirect.operator in ("<", "<<", "<<-", "<<<"):
            continue
        if redirect.operator in (">&", "<&") and (redirect.target.isdigit() or redirect.target == "-"):
            continue
        if redirect.target not in _HARMLESS_TARGETS:
            return True
    return False


def _mode_default(mode: ApprovalMode, kind: ToolKind) -> tuple[PermissionDecision, str]:
    if mode is ApprovalMode.YOLO:
        return PermissionDecision.ALLOW, "yolo mode: everything is allowed"
    if kind is ToolKind.READ:
        return PermissionDecision.ALLOW, "read-only tool"
    if kind is ToolKind.EDIT:
        if mode is ApprovalMode.AUTO_EDIT:
            return PermissionDecision.ALLOW, "auto-edit mode: file edits are allowed"
        return PermissionDecision.ASK, "file edits need approval"
    if kind is ToolKind.EXTERNAL:
        return PermissionDecision.ASK, "MCP tools need approval unless the server is trusted"
    return PermissionDecision.ASK, "commands need approval"


def _coerce_mode(mode: object, warnings: list[str]) -> ApprovalMode:
    try:
        return ApprovalMode(mode)
    except ValueError:
        known = ", ".join(m.value for m in ApprovalMode)
        warnings.append(f"unknown approval mode {mode!r} (expected one of {known}); using default")
        return ApprovalMode.DEFAULT


def _root_relative(subject: str, root: Path | None) -> str:
    """Absolute paths inside the workspace become root-relative, as rules are written."""
    if root is None or not os.path.isabs(subject):
        return subject
    for base in (root, root.resolve()):
        try:
            return Path(subject).relative_to(base).as_posix() or "."
        except ValueError:
            continue
    return subject
