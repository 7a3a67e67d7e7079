"""One memory file: YAML frontmatter (name, description, type) and a Markdown body.

Parsing never raises: whatever is wrong with a file becomes a ``problems``
entry, and a file without one of the four types is kept out of use (``ignored``)
rather than guessed at.
"""

from __future__ import annotations

import json
import re
import reprlib
from dataclasses import field
from app.dataclass import dataclass
from functools import cache
from typing import Any

from app.context.frontmatter import FrontmatterError, FrontmatterProblem, read_block, read_frontmatter
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryType, memory_type

_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*))?$")
# A value starting with one of these, or holding ": " or " #", means something
# beyond a plain string to YAML (quoting, a list, an anchor, a comment...).
_YAML_INDICATORS = frozenset("'\"[]{}|>&*!%@`#,?:-")


@cache
def _yaml():  # type: ignore[no-untyped-def]
    """yaml and its fastest safe loader, imported on the first frontmatter that needs a real parser
    (about 10 ms that a turn in a project without memories never pays)."""
    import yaml

    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Characters YAML accepts nowhere in a stream, not even quoted (its "printable" set leaves them out).
_NOT_YAML_PRINTABLE = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
# A value shown in a problem is cut short first: through YAML aliases a few lines can name a
# structure with billions of elements, which str() would spell out in full.
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 4, 4, 40, 40


@dataclass(frozen=True)
class ParsedMemory:
    """What a memory file says. ``type`` is None when the file cannot be used."""

    type: MemoryType | None
    name: str
    title: str
    description: str
    body: str
    fields: dict[str, Any] = field(default_factory=dict)
    frontmatter_text: str | None = None  # the raw block between the fences; None without one
    problems: tuple[str, ...] = ()

    @property
    def ignored(self) -> bool:
        return self.type is None


def parse_memory_text(text: str) -> ParsedMemory:
    """Parse a memory file's text (CRLF line ends and a leading BOM are accepted)."""
    text = text.replace("\r\n", "\n").removeprefix("\ufeff")
    if not text.strip():
        return _unusable("", "the file is empty")
    header = read_frontmatter(text, strict=False)
    if header.block is None:
        unclosed = " (the '---' on line 1 is never closed)" if header.problems else ""
        return _unusable(
            text.strip(), f"no frontmatter{unclosed}: the file must start with a '---' block holding name, description and type"
        )
    block, body = header.block, header.body.strip()
    fields, problems = _memory_fields(header.data, block, header.problems)
    raw_type = fields.get("type")
    kind = memory_type(raw_type)
    if raw_type is None or (isinstance(raw_type, str) and not raw_type.strip()):
        problems.append("the frontmatter has no type; the file is ignored")
    elif kind is None:
        problems.append(
            f"unknown type {_shown(raw_type)} (expected one of {', '.join(AUTO_MEMORY_TYPES)}); the file is ignored"
        )
    name = _text_field(fields, "name", problems)
    description = _text_field(fields, "description", problems)
    title = name or _text_field(fields, "title", problems) or (kind.value if kind else "")
    return ParsedMemory(
        type=kind,
        name=name,
        title=title,
        description=description,
        body=body,
        fields=fields,
        frontmatter_text=block,
        problems=tuple(problems),
    )


def parse_frontmatter_block(block: str) -> tuple[dict[str, Any], list[str]]:
    """The fields of a frontmatter block and what was wrong with it.

    The block is read by the shared parser in its lenient mode (app/context/frontmatter.py):
    YAML it rejects, commonly a description with a colon in it, is still read line by line,
    with a problem noted.
    """
    header = read_block(block, strict=False)
    return _memory_fields(header.data, block, header.problems)


def _problem_text(error: FrontmatterError) -> str:
    if error.kind is FrontmatterProblem.YAML:
        problem = error.message.removeprefix("invalid YAML in frontmatter: ")
        return f"the frontmatter is not valid YAML (line {error.line}: {problem}); it was read line by line"
    if error.kind is FrontmatterProblem.NOT_MAPPING:
        return f"the frontmatter is not a mapping of keys to values (line {error.line})"
    return f"{error.message}; the last value is used"


def _memory_fields(data: dict[str, Any], block: str, errors: tuple[FrontmatterError, ...]) -> tuple[dict[str, Any], list[str]]:
    """A memory's fields: a plain one-line value is the text written (``name: yes`` is the name
    "yes", not YAML 1.1's True), so what the model wrote reads back as written."""
    fields = dict(data)
    retyped = any(value is not None and not isinstance(value, (str, dict, list)) for value in fields.values())
    if retyped and not any(error.kind is FrontmatterProblem.NOT_MAPPING for error in errors):
        for line in block.split("\n"):
            match = _KEY_LINE.match(line)
            value = (match.group(2) or "").strip() if match else ""
            scalar = fields.get(match.group(1)) if match else None
            if match and value and _is_plain(value) and not isinstance(scalar, (str, dict, list)):
                fields[match.group(1)] = value
    problems = [_problem_text(error) for error in errors]
    return fields, problems


def render_memory(*, name: str, description: str, memory_type: MemoryType | str, body: str) -> str:
    """A memory file's text: the frontmatter block, a blank line, the body."""
    kind = MemoryType(memory_type)
    lines = ["---", f"name: {_yaml_value(name)}", f"description: {_yaml_value(description)}", f"type: {kind.value}", "---"]
    return well_formed("\n".join(lines) + "\n\n" + body.strip() + "\n")


def well_formed(text: str) -> str:
    """``text`` with any lone surrogate (which UTF-8 cannot encode) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def render_with_frontmatter(frontmatter_text: str, body: str) -> str:
    """A file rebuilt from its original frontmatter block and a new body."""
    return well_formed(f"---\n{frontmatter_text}\n---\n\n{body.strip()}\n")


def _unusable(body: str, problem: str) -> ParsedMemory:
    return ParsedMemory(type=None, name="", title="", description="", body=body, problems=(problem,))


def _is_plain(value: str) -> bool:
    return value[0] not in _YAML_INDICATORS and ": " not in value and " #" not in value and not value.endswith(":")


def _text_field(fields: dict[str, Any], key: str, problems: list[str]) -> str:
    value = fields.get(key)
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        problems.append(f"`{key}` is not text; it was ignored")
        return ""
    return str(value).strip()


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else _SHORT.repr(value)
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


def _yaml_value(value: str) -> str:
    """A one-line value that reads back as the same string, quoted only when it must be."""
    single = " ".join(value.split())
    if single and _is_plain(single) and _reads_back(single):
        return single
    # JSON is YAML's double-quoted form, except that YAML refuses DEL and most C1 codes even
    # inside quotes (the whole block would fail to parse): those are written as \u escapes.
    return _NOT_YAML_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(single, ensure_ascii=False))


def _reads_back(value: str) -> bool:
    yaml, loader = _yaml()
    try:
        return yaml.load(f"k: {value}", Loader=loader) == {"k": value}
    except yaml.YAMLError:
        return False
