"""Project rules: ``<project root>/.qwen/rules/**/*.md``.

A rule with ``paths:`` globs in its frontmatter is conditional: it waits until
a matching file is touched, so it is returned apart and not injected. Every
other rule is injected after the instruction files.
"""

from __future__ import annotations

import os
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.context.instructions.display import display_path
from app.context.instructions.fscache import FsCache
from app.context.instructions.fspaths import escaping_link
from app.context.instructions.reading import format_bytes
from app.paths import QWEN_DIR

RULES_DIR = "rules"
RULE_SUFFIX = ".md"


@dataclass(frozen=True)
class Rule:
    """One rule file: its body, and the globs that make it wait for a matching file."""

    path: Path
    display_path: str
    # Path inside the rules directory, with "/" separators: the sort key and a stable name.
    name: str
    # The body after the frontmatter, trimmed.
    content: str
    globs: tuple[str, ...] = ()

    @property
    def conditional(self) -> bool:
        return bool(self.globs)


@dataclass
class RuleSet:
    """The project's rules: those injected now, the conditional ones, and what could not be read."""

    rules: list[Rule] = field(default_factory=list)
    conditional: list[Rule] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def rules_dir(project_root: Path) -> Path:
    return project_root / QWEN_DIR / RULES_DIR


def load_rules(project_root: Path, *, cwd: Path | None = None, trusted: bool = True, fs: FsCache | None = None) -> RuleSet:
    """Rules sorted by their path in the rules directory; an untrusted folder has none."""
    result = RuleSet()
    if not trusted:
        return result
    fs = fs or FsCache()
    cwd = cwd or project_root
    for path, name in _rule_files(rules_dir(project_root), result.problems, cwd):
        rule = _load_rule(path, name, cwd, fs, result.problems, project_root)
        if rule is not None and rule.content:
            (result.conditional if rule.conditional else result.rules).append(rule)
    return result


def _rule_files(directory: Path, problems: list[str], cwd: Path) -> list[tuple[Path, str]]:
    if not directory.is_dir():
        return []

    def report(exc: OSError) -> None:
        problems.append(f"Skipped rules in {display_path(exc.filename or directory, cwd)}: {exc.strerror or exc}")

    found: list[tuple[Path, str]] = []
    # Symlinked directories are not followed: a link cycle must not walk forever.
    for folder, _dirs, names in os.walk(directory, onerror=report):
        for name in names:
            if name.endswith(RULE_SUFFIX):
                path = Path(folder) / name
                found.append((path, path.relative_to(directory).as_posix()))
    found.sort(key=lambda item: item[1])
    return found


def _load_rule(path: Path, name: str, cwd: Path, fs: FsCache, problems: list[str], rules_root: Path) -> Rule | None:
    shown = display_path(path, cwd)
    escape = escaping_link(path, rules_root, fs)
    if escape is not None:
        problems.append(f"Skipped rule {shown}: {escape}")
        return None
    read = fs.read(path)
    if read.text is None:
        if not read.missing:
            problems.append(f"Skipped rule {shown}: {read.error}")
        return None
    if read.lossy:
        problems.append(f"Rule {shown} is not valid UTF-8; undecodable bytes were replaced with U+FFFD")
    if read.oversize:
        problems.append(f"Rule {shown} is larger than {format_bytes(fs.max_bytes)}; only the start was read")
    from app.context.frontmatter import FrontmatterError, read_frontmatter  # with the first rule file

    try:
        header = read_frontmatter(read.text, path=shown)
    except FrontmatterError as exc:
        problems.append(f"Skipped rule {shown}: malformed frontmatter at line {exc.line}: {exc.message}")
        return None
    globs = header.data.get("paths")
    if isinstance(globs, str):
        globs = [globs]
    if globs is None:
        globs = []
    if not isinstance(globs, list) or not all(isinstance(g, str) and g.strip() for g in globs):
        line = header.key_lines.get("paths", 2)
        problems.append(f"Skipped rule {shown}: malformed frontmatter at line {line}: 'paths' must be a list of glob patterns")
        return None
    return Rule(path=path, display_path=shown, name=name, content=header.body.strip(), globs=tuple(g.strip() for g in globs))
