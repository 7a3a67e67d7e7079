"""Whether a tool call may run, must be approved, or is refused.

Precedence, strongest first:
1. deny rules                          -> DENY (every mode, yolo included)
2. plan mode and a tool that isn't READ -> DENY
3. "always ask" rules (team memory)     -> ASK, in every mode
4. writes to the agent's own controls   -> ASK, in every mode but yolo (agent_controls.py)
5. ask rules                           -> ASK (ALLOW in yolo mode)
6. allow rules and session "always"    -> ALLOW
7. the mode's default: READ is allowed everywhere; EDIT asks in default mode
   and is allowed in auto-edit; EXECUTE asks unless in yolo; yolo allows all.

Shell commands are judged by what they run (shell_wrappers.py): every simple
command of every pipeline, list and substitution, and the programs inside
wrappers (``sudo``, ``env``, ``timeout``, ``xargs``, ``bash -c``, ``find -exec``...).
Deny and ask rules fire when any of them matches (shell_rule_match.py); a
command whose program is known only when it runs matches every deny rule.
Allow rules apply only when the command was fully analysed, every invocation
is allowed by some rule, and no part writes a file through a redirection.
"""

from __future__ import annotations

import os
from dataclasses import field
from app.dataclass import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.tools.base import Tool, ToolKind
from app.core.tools.agent_controls import REASON as CONTROLS_REASON
from app.core.tools.agent_controls import command_touches_controls, names_control
from app.core.tools.permission_rules import PermissionRule, escape_pattern, parse_rules

# The bash grammar and the shell tables load with the first shell command checked: a turn
# that runs none (most headless turns) never pays for them (about 10 ms of imports).
if TYPE_CHECKING:
    from app.core.tools.shell_syntax import SimpleCommand
    from app.core.tools.shell_wrappers import Analysis, Invocation


class ApprovalMode(str, Enum):
    DEFAULT = "default"
    AUTO_EDIT = "auto-edit"
    YOLO = "yolo"
    PLAN = "plan"


class PermissionDecision(str, Enum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


# The tool whose subject is a bash command line; other EXECUTE tools (MCP) are matched by name.
SHELL_TOOL = "run_shell_command"
# Redirection targets that write nothing anyone cares about.
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


@dataclass
class _Call:
    """One tool call as the rules see it."""

    tool_name: str
    subject: str
    analysis: Analysis | None  # set for shell commands only
    kind: ToolKind = ToolKind.READ

    @property
    def is_command(self) -> bool:
        return self.analysis is not None


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
            return PermissionDecision.DENY, _deny_reason(rule, call)
        if self.mode is ApprovalMode.PLAN and tool.kind is not ToolKind.READ:
            return PermissionDecision.DENY, "plan mode: only read-only tools"
        rule = _any_part_matches(self.always_ask, call)
        if rule is not None:
            return PermissionDecision.ASK, f"rule {rule} always asks, in every mode"
        controls = self._controls_reason(call) if self.mode is not ApprovalMode.YOLO else None
        if controls is not None:
            return PermissionDecision.ASK, controls
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
        decision, reason = _mode_default(self.mode, tool.kind)
        if call.analysis is not None and not call.analysis.ok and decision is PermissionDecision.ASK:
            reason = f"{reason}; the command cannot be fully analysed ({call.analysis.error})"
        return decision, reason

    def unasked(self, tool: Tool, args: dict[str, Any]) -> bool:
        """Whether an allowed call runs on the program's own authority (a skill's grant), not the user's;
        such a shell command runs read-only and sandboxed. The user's own rules and answers are theirs."""
        return False

    def allow_for_session(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        """Remember an "always" answer; returns the rules added (to tell the person)."""
        call = self._call(tool, args)
        if self._controls_reason(call) is not None:
            return []  # asked every time: one "always" must not open the agent's own controls
        added: list[str] = []
        for rule in session_rules_for(tool, call):
            if rule not in self.session_rules:
                self.session_rules.append(rule)
                added.append(str(rule))
        return added

    def always_preview(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        """The rules an "always" answer would add, so the question can say what it covers."""
        return [str(rule) for rule in session_rules_for(tool, self._call(tool, args)) if rule not in self.session_rules]

    def _call(self, tool: Tool, args: dict[str, Any]) -> _Call:
        subject = tool.subject(args)
        if tool.kind is ToolKind.EXECUTE and tool.name == SHELL_TOOL:
            from app.core.tools.shell_wrappers import analyse_command

            return _Call(tool.name, subject, analyse_command(subject), tool.kind)
        return _Call(tool.name, _root_relative(subject, self.root), None, tool.kind)

    def _controls_reason(self, call: _Call) -> str | None:
        """Why this call may write the agent's own controls (agent_controls.py), or None."""
        analysis = call.analysis
        if analysis is not None:
            if not analysis.ok:
                return None  # never allowed on a rule anyway: the mode's default asks
            reason = command_touches_controls(analysis, self.root)
            from app.core.tools.shell_readonly import read_only_refusal

            # Reading a control is fine (cat .git/config); only a command that may write asks.
            if reason is None or read_only_refusal(call.subject, roots=[Path(os.sep)], cwd=self.root) is None:
                return None
            return reason
        if call.kind is ToolKind.EDIT and names_control(call.subject, self.root):
            return CONTROLS_REASON
        return None


def session_rules_for(tool: Tool, call: _Call) -> list[PermissionRule]:
    """For the shell, the programs the command runs (``git *`` and bare ``git``); otherwise the tool."""
    if call.analysis is None:
        return [PermissionRule(tool.name)]
    if not call.analysis.ok:
        return []  # allow rules never apply to a command that cannot be analysed
    rules: list[PermissionRule] = []
    candidates = [rule for invocation in call.analysis.invocations for rule in _program_rules(tool.name, invocation)]
    # "X=1; ..." alone is a part the allow rules must cover: remembered exactly as written.
    candidates += [
        PermissionRule(tool.name, escape_pattern(simple.text))
        for simple in call.analysis.commands
        if simple.assignment_words and not simple.argv_words
    ]
    for rule in candidates:
        if rule not in rules:
            rules.append(rule)
    return rules


def _program_rules(tool_name: str, invocation: Invocation) -> list[PermissionRule]:
    if invocation.assignments or not invocation.words:
        # Variables can change what a program does; only this exact invocation is remembered.
        return [PermissionRule(tool_name, escape_pattern(invocation.text))] if invocation.words else []
    program = escape_pattern(invocation.words[0].text)
    return [PermissionRule(tool_name, f"{program} *"), PermissionRule(tool_name, program)]


def _any_part_matches(rules: list[PermissionRule], call: _Call) -> PermissionRule | None:
    """The first rule matching the call, or for a command, the whole line or anything it runs.

    A command whose program is known only when it runs matches every shell rule.
    """
    from app.core.tools.shell_rule_match import deny_pattern_matches

    analysis = call.analysis
    for rule in rules:
        if analysis is None:
            if rule.matches(call.tool_name, call.subject, command=False):
                return rule
            continue
        if not rule.names_tool(call.tool_name):
            continue
        if rule.pattern is None or analysis.unknown_program:
            return rule
        if any(deny_pattern_matches(rule.pattern, invocation) for invocation in analysis.invocations):
            return rule
        if rule.matches(call.tool_name, call.subject, command=True):
            return rule
    return None


def _deny_reason(rule: PermissionRule, call: _Call) -> str:
    analysis = call.analysis
    if analysis is not None and analysis.unknown_program and rule.pattern is not None:
        return f"denied by rule {rule}: what the command runs is known only when it runs ({analysis.error})"
    return f"denied by rule {rule}"


def _every_part_matches(rules: list[PermissionRule], call: _Call) -> PermissionRule | None:
    """A rule that allows the call; for a command, every invocation must be allowed by some rule."""
    analysis = call.analysis
    if analysis is None:
        return next((rule for rule in rules if rule.matches(call.tool_name, call.subject, command=False)), None)
    if not analysis.ok or not analysis.invocations or any(_writes_file(simple) for simple in analysis.commands):
        return None
    first: PermissionRule | None = None
    parts: list[tuple[Invocation | None, str]] = [(inv, inv.text) for inv in analysis.invocations]
    # "X=1; ..." alone is a part too: an assignment must be allowed as written.
    parts += [(None, simple.text) for simple in analysis.commands if not simple.argv_words and simple.assignment_words]
    for invocation, text in parts:
        rule = next((r for r in rules if _allows(r, call.tool_name, invocation, text)), None)
        if rule is None:
            return None
        first = first or rule
    return first


def _allows(rule: PermissionRule, tool_name: str, invocation: Invocation | None, text: str) -> bool:
    if not rule.names_tool(tool_name):
        return False
    if rule.pattern is None:
        return True
    if invocation is None:
        return rule.matches(tool_name, text, command=True)
    from app.core.tools.shell_rule_match import allow_pattern_matches

    return allow_pattern_matches(rule.pattern, invocation)


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
