"""The data every skills module shares: a parsed skill, a problem, a level, a status."""

from __future__ import annotations

from app.dataclass import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

SKILL_FILE = "SKILL.md"


class SkillLevel(str, Enum):
    """Where a skill came from; the declaration order is the priority order (first wins)."""

    PROJECT = "project"
    USER = "user"
    BUNDLED = "bundled"


ALL_LEVELS: tuple[SkillLevel, ...] = tuple(SkillLevel)


class SkillErrorCode(str, Enum):
    NOT_FOUND = "NOT_FOUND"
    INVALID_CONFIG = "INVALID_CONFIG"
    INVALID_NAME = "INVALID_NAME"
    FILE_ERROR = "FILE_ERROR"
    PARSE_ERROR = "PARSE_ERROR"


class SkillStatus(str, Enum):
    AVAILABLE = "available"  # listed to the model
    WAITING = "waiting"  # has paths: and no matching file was touched yet
    USER_ONLY = "user-only"  # disable-model-invocation: never offered to the model
    DISABLED = "disabled"  # named in skills.disabled
    SHADOWED = "shadowed"  # a skill with the same name at a higher level wins
    ERROR = "error"  # could not be loaded; see the message


@dataclass(frozen=True)
class Skill:
    """A SKILL.md that parsed. The body is not kept: it is read again when the skill is invoked."""

    name: str
    description: str
    level: SkillLevel
    path: Path  # the SKILL.md file
    when_to_use: str | None = None
    argument_hint: str | None = None
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()
    disable_model_invocation: bool = False
    paths: tuple[str, ...] = ()
    priority: float | None = None
    hooks: Any = None

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def conditional(self) -> bool:
        return bool(self.paths)


@dataclass(frozen=True)
class SkillProblem:
    """Something wrong with one skill (or one of its globs); shown in /skills, never raised."""

    path: Path  # the SKILL.md, or the entry in a skills dir that could not be used
    code: SkillErrorCode
    message: str
    level: SkillLevel | None = None
    pattern: str | None = None  # set for an invalid ``paths`` glob

    @property
    def key(self) -> str:
        """One problem per key: the file, or ``<file>#paths[<pattern>]`` for a glob."""
        return str(self.path) if self.pattern is None else f"{self.path}#paths[{self.pattern}]"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class SkillEntry:
    """One row of the /skills panel: a skill (or a broken one) and why it is or isn't offered."""

    name: str  # for an unparsable skill, the folder name
    level: SkillLevel | None
    path: Path
    status: SkillStatus
    skill: Skill | None = None
    message: str = ""  # the error, or what shadows this skill


@dataclass(frozen=True)
class SkillInvocation:
    """A skill the model loaded: what went into the context and what it is allowed to run.

    ``allowed_tools`` are permission-rule strings (``read_file``,
    ``run_shell_command(git *)``); see :mod:`app.context.skills.grants`.
    """

    name: str
    level: SkillLevel
    base_dir: Path
    content: str  # exactly what the tool returned to the model
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    args: str | None = None
