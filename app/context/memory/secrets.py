"""The secret scanner: which credential rules a text trips, never what matched.

Guards team memory, which is committed for everyone to read, and recall, which
must not put a stored credential into a prompt. A finding holds the rule id and
its label only; the matched value is neither returned nor logged, so a report
about a leak cannot itself leak.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from app.context.memory.secret_matchers import (
    has_openai_marker_key,
    has_private_key_block,
)
from app.context.memory.secret_rules import (
    OPENAI_MARKER_PATTERN,
    PRIVATE_KEY_PATTERN,
    SECRET_RULES,
    SecretRule,
    compile_pattern,
    rule_label,
)


@dataclass(frozen=True)
class SecretFinding:
    rule_id: str
    label: str


# Patterns a backtracking engine would run in quadratic time get linear matchers.
_LINEAR_MATCHERS: dict[str, Callable[[str], bool]] = {
    OPENAI_MARKER_PATTERN: has_openai_marker_key,
    PRIVATE_KEY_PATTERN: has_private_key_block,
}


def _matcher(rule: SecretRule, pattern: str) -> Callable[[str], bool]:
    if pattern in _LINEAR_MATCHERS:
        return _LINEAR_MATCHERS[pattern]
    compiled = compile_pattern(pattern, rule.ignore_case)
    return lambda text: compiled.search(text) is not None


@dataclass(frozen=True)
class _CompiledRule:
    finding: SecretFinding
    needles: tuple[str, ...]
    matchers: tuple[Callable[[str], bool], ...]

    def fires(self, text: str) -> bool:
        if self.needles and not any(needle in text for needle in self.needles):
            return False
        return any(match(text) for match in self.matchers)


_RULES = tuple(
    _CompiledRule(
        finding=SecretFinding(rule.rule_id, rule_label(rule.rule_id)),
        needles=rule.needles,
        matchers=tuple(_matcher(rule, pattern) for pattern in rule.patterns),
    )
    for rule in SECRET_RULES
)


def scan(text: str) -> list[SecretFinding]:
    """One finding per rule that fires on ``text``, in rule order."""
    return [rule.finding for rule in _RULES if rule.fires(text)]


scan_for_secrets = scan


def contains_secret(text: str) -> bool:
    """Whether any rule fires (stops at the first)."""
    return any(rule.fires(text) for rule in _RULES)


def describe_findings(findings: list[SecretFinding]) -> str:
    """``GitHub PAT, AWS Access Token``: what was found, for a message to the person."""
    return ", ".join(f.label for f in findings)


def rule_pattern(rule_id: str) -> re.Pattern[str]:
    """The rule's first pattern compiled as written (for tests and tools; scanning uses ``scan``)."""
    rule = next(r for r in SECRET_RULES if r.rule_id == rule_id)
    return compile_pattern(rule.patterns[0], rule.ignore_case)
