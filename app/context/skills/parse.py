"""One SKILL.md: YAML frontmatter between ``---`` lines, then the Markdown body.

The field rules and error messages follow Qwen Code's loader so skills written
for it behave the same here. A broken skill is reported, never raised past the
loader: one typo must not hide the other skills.
"""

from __future__ import annotations

import os
import reprlib
import stat
import unicodedata
from app.dataclass import dataclass
from pathlib import Path
from typing import Any

from app.context.frontmatter import FrontmatterError, FrontmatterProblem, read_frontmatter
from app.context.skills.model import Skill, SkillErrorCode, SkillLevel, SkillProblem

# A skill is a page of instructions; a huge file is a mistake and would flood the context when invoked.
MAX_SKILL_BYTES = 1024 * 1024
_NAME_PUNCTUATION = frozenset("_:.-")
# YAML aliases let a few lines name a structure with billions of elements (shared, so cheap to
# load); turning one into text must stay bounded, so only its first few items are ever shown.
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 4, 4, 40, 40


class SkillParseError(Exception):
    def __init__(self, code: SkillErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ParsedSkill:
    """A SKILL.md read in full: the Skill and the body the skill tool loads (a Skill keeps no body)."""

    skill: Skill
    body: str  # trimmed


def load_skill(path: Path, level: SkillLevel) -> Skill | SkillProblem:
    """The skill in ``path`` (a SKILL.md), or the problem that keeps it out."""
    try:
        return read_skill_file(path, level).skill
    except SkillParseError as exc:
        return SkillProblem(path=path, code=exc.code, message=exc.message, level=level)


def read_skill_file(path: Path, level: SkillLevel) -> ParsedSkill:
    """Read and parse ``path``; errors carry the wrapped ``Failed to … skill file:`` message."""
    try:
        text = _read_text(path)
    except OSError as exc:
        raise SkillParseError(SkillErrorCode.FILE_ERROR, f"Failed to read skill file: {_reason(exc)}") from exc
    try:
        return parse_skill_text(text, path, level)
    except SkillParseError as exc:
        raise SkillParseError(exc.code, f"Failed to parse skill file: {exc.message}") from exc


def parse_skill_text(text: str, path: Path, level: SkillLevel) -> ParsedSkill:
    """Parse SKILL.md text; the error message is the bare one (no ``Failed to parse`` prefix)."""
    try:
        header = read_frontmatter(text, path=path)
    except FrontmatterError as exc:
        raise SkillParseError(SkillErrorCode.PARSE_ERROR, _header_message(exc)) from exc
    if not header.has_header:
        raise SkillParseError(SkillErrorCode.PARSE_ERROR, "Invalid format: missing YAML frontmatter")
    data = header.data
    body = header.body.strip()
    skill = Skill(
        name=_name(data),
        description=_description(data),
        level=level,
        path=path,
        when_to_use=_optional_string(data, "when_to_use"),
        argument_hint=_optional_string(data, "argument-hint"),
        model=_model(data),
        allowed_tools=_allowed_tools(data),
        disable_model_invocation=_is_true(data.get("disable-model-invocation")),
        paths=_paths(data),
        priority=_priority(data),
        hooks=data.get("hooks"),
    )
    if not body:
        # Not a Qwen Code rule: an empty skill gives the model nothing when invoked, so it is surely a mistake.
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, "the skill has no instructions after the frontmatter")
    return ParsedSkill(skill=skill, body=body)


def is_valid_skill_name(name: str) -> bool:
    """Letters and digits of any script, plus ``_ : . -``: no spaces, no slashes."""
    return bool(name) and all(ch in _NAME_PUNCTUATION or unicodedata.category(ch)[0] in "LN" for ch in name)


def _read_text(path: Path) -> str:
    info = os.stat(path)  # follows a symlinked SKILL.md, as open() would
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(f"{path} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        # Opening a FIFO would block the loader until someone writes to it.
        raise OSError(f"{path} is not a regular file")
    with open(path, "rb") as handle:
        data = handle.read(MAX_SKILL_BYTES + 1)
    if len(data) > MAX_SKILL_BYTES:
        raise OSError(f"{path} is larger than {MAX_SKILL_BYTES // 1024 // 1024} MiB")
    return data.decode("utf-8", errors="replace")


def _reason(exc: OSError) -> str:
    if exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    return exc.strerror or str(exc)


def _header_message(exc: FrontmatterError) -> str:
    """The shared parser's error in the words Qwen Code's loader uses (skills written for it read the same)."""
    if exc.kind is FrontmatterProblem.YAML:
        problem = exc.message.removeprefix("invalid YAML in frontmatter: ")
        column = f", column {exc.column}" if exc.column is not None else ""
        return f"invalid YAML in frontmatter at line {exc.line}{column}: {problem}"
    if exc.kind is FrontmatterProblem.NOT_MAPPING:
        return "Invalid format: the frontmatter must be a YAML mapping of keys to values"
    if exc.kind is FrontmatterProblem.UNCLOSED:
        return "Invalid format: missing YAML frontmatter"  # Qwen Code's words for a header never closed
    return f"Invalid format: {exc.message}"


def _scalar_text(value: Any) -> str | None:
    """A YAML scalar as text (``name: 2024`` is meant as a name, not a number); None for anything else."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, list, dict)):
        return None
    return str(value)


def _name(data: dict[str, Any]) -> str:
    value = data.get("name")
    if value is None or value == "":
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, 'Missing "name" in frontmatter')
    name = _scalar_text(value)
    if name is None or not is_valid_skill_name(name):
        shown = name if name is not None else _SHORT.repr(value)
        raise SkillParseError(
            SkillErrorCode.INVALID_NAME,
            f'Invalid "name" in frontmatter: "{shown}" may only contain letters, digits, "_", ":", "." and "-"',
        )
    return name


def _description(data: dict[str, Any]) -> str:
    value = data.get("description")
    text = _scalar_text(value)
    if text is None and value is not None:
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, '"description" must be a string')
    if text is None or not text.strip():
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, 'Missing "description" in frontmatter')
    return text.strip()


def _optional_string(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, f'"{key}" must be a string')
    return value.strip() or None


def _model(data: dict[str, Any]) -> str | None:
    value = data.get("model")
    if value is None:
        return None
    if not isinstance(value, str):
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, '"model" must be a string')
    value = value.strip()
    return None if value in ("", "inherit") else value


def _allowed_tools(data: dict[str, Any]) -> tuple[str, ...]:
    value = data.get("allowedTools")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, '"allowedTools" must be an array')
    return tuple(text for text in (_list_item(item, "allowedTools") for item in value if item is not None) if text)


def _list_item(item: Any, key: str) -> str:
    """One entry of a list field as text; a nested list or mapping there is a mistake."""
    if isinstance(item, (list, dict)):
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, f'"{key}" entries must be text, not {_SHORT.repr(item)}')
    return str(item).strip()


def _is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _priority(data: dict[str, Any]) -> float | None:
    value = data.get("priority")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, '"priority" must be a number')
    return value


def _paths(data: dict[str, Any]) -> tuple[str, ...]:
    value = data.get("paths")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SkillParseError(SkillErrorCode.INVALID_CONFIG, '"paths" must be an array of glob patterns')
    patterns = [text for text in (_list_item(item, "paths") for item in value if item is not None) if text]
    for pattern in patterns:
        _check_pattern(pattern)
    return tuple(patterns)


def _check_pattern(pattern: str) -> None:
    if pattern.startswith(("/", "\\")):
        raise SkillParseError(
            SkillErrorCode.INVALID_CONFIG,
            f'"paths" entry "{pattern}" looks absolute; patterns are project-root-relative — drop the leading slash',
        )
    if pattern == ".." or pattern.startswith(("../", "..\\")):
        raise SkillParseError(
            SkillErrorCode.INVALID_CONFIG,
            f'"paths" entry "{pattern}" escapes the project root; patterns must stay within the project',
        )
