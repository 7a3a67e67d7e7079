"""Conditional skills: a skill with ``paths:`` globs is offered once a tool call touches a matching file.

Globs are matched against the project-relative path with ``**`` and dot-files
(``.eslintrc.js`` should wake a lint skill just as ``src/x.ts`` does). Each
skill's valid patterns are compiled once into one regex, so a tool call costs
one ``fullmatch`` per still-waiting skill. Activation sticks for the session.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable
from app.dataclass import dataclass
from pathlib import Path

from app.context.skills.model import Skill, SkillErrorCode, SkillProblem
from app.core.tools.globmatch import compile_glob

MAX_PATTERN_LENGTH = 65_536


class InvalidGlob(ValueError):
    pass


@dataclass(frozen=True)
class _Gate:
    """One conditional skill's globs as written and compiled together into one regex."""

    patterns: tuple[str, ...]  # as written: a reload keeps activation only while these are unchanged
    regex: re.Pattern[str] | None  # None when no pattern compiled: the skill can never activate


class SkillActivator:
    """The conditional skills of one discovery and which of them a tool call has woken."""

    def __init__(self, root: Path | str, skills: Iterable[Skill], *, previous: SkillActivator | None = None) -> None:
        self._root = os.path.normpath(os.path.abspath(root))
        real = os.path.realpath(self._root)
        # Tools may report paths through the resolved root when the root itself is a symlink.
        self._roots = (self._root,) if real == self._root else (self._root, real)
        self.problems: list[SkillProblem] = []
        self._gates: dict[str, _Gate] = {}
        self.activated: set[str] = set()
        for skill in skills:
            if skill.conditional:
                self._gates[skill.name] = _Gate(skill.paths, self._compile(skill))
        if previous is not None:
            self._carry_over(previous)
        self._waiting = {
            name: gate.regex
            for name, gate in self._gates.items()
            if gate.regex is not None and name not in self.activated
        }

    def is_conditional(self, name: str) -> bool:
        return name in self._gates

    def is_active(self, name: str) -> bool:
        """Unconditional skills are always active; conditional ones once a matching file was touched."""
        return name not in self._gates or name in self.activated

    def observe_paths(self, paths: Iterable[str | Path]) -> list[str]:
        """Feed the paths a tool call touched; returns the names activated by this call, in skill order."""
        if not self._waiting:
            return []
        newly: list[str] = []
        for raw in paths:
            relative = resolve_project_relative_path(raw, self._roots)
            if relative is None:
                continue
            for name, regex in list(self._waiting.items()):
                if regex.fullmatch(relative):
                    del self._waiting[name]
                    self.activated.add(name)
                    newly.append(name)
            if not self._waiting:
                break
        return newly

    def _compile(self, skill: Skill) -> re.Pattern[str] | None:
        """The skill's valid patterns ORed; each invalid one is dropped alone and reported."""
        parts: list[str] = []
        for pattern in skill.paths:
            try:
                parts.append(compile_pattern(pattern).pattern)
            except InvalidGlob as exc:
                message = f'Invalid glob in "paths": {pattern} — {exc}'
                self.problems.append(
                    SkillProblem(skill.path, SkillErrorCode.INVALID_CONFIG, message, skill.level, pattern)
                )
        if not parts:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the same "possible nested set" as in compile_pattern
            return re.compile("|".join(f"(?:{part})" for part in parts))

    def _carry_over(self, previous: SkillActivator) -> None:
        # A reload keeps what was woken unless the skill's paths changed: an edited glob takes effect at once.
        for name in previous.activated:
            gate, before = self._gates.get(name), previous._gates.get(name)
            if gate is not None and before is not None and gate.patterns == before.patterns:
                self.activated.add(name)


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A ``paths`` glob as a regex for project-relative ``/`` paths; raises InvalidGlob."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise InvalidGlob(f"pattern is longer than {MAX_PATTERN_LENGTH} characters")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" for [[...]]: a glob, not our regex
            return compile_glob(_collapse_globstars(pattern))
    except re.error as exc:
        raise InvalidGlob(exc.msg) from None
    except RecursionError:
        raise InvalidGlob("pattern is nested too deeply") from None


def resolve_project_relative_path(path: str | Path, roots: str | Path | tuple[str, ...]) -> str | None:
    """``path`` relative to the project root with ``/`` separators; None outside the root or for the root itself.

    Purely lexical (no filesystem access): this runs on every tool call.
    """
    text = os.fspath(path)
    if not text:
        return None
    if text.startswith("~"):
        try:
            text = os.path.expanduser(text)
        except ValueError:  # "~name" with a NUL byte in it: no file has that name
            return None
    candidates = (os.path.normpath(os.path.abspath(roots)),) if isinstance(roots, (str, Path)) else roots
    for root in candidates:
        absolute = os.path.normpath(os.path.join(root, text))
        prefix = root if root.endswith(os.sep) else root + os.sep
        if absolute.startswith(prefix):
            relative = absolute[len(prefix) :]
            return relative.replace("\\", "/") if relative else None
    return None


def _collapse_globstars(pattern: str) -> str:
    """``a/**/**/b`` means ``a/**/b``; repeated ``**`` would only make the regex backtrack for nothing."""
    segments: list[str] = []
    for segment in pattern.split("/"):
        if segment == "**" and segments and segments[-1] == "**":
            continue
        segments.append(segment)
    return "/".join(segments)
