"""Finding skills: each level's skills dirs in priority order, one ``<entry>/SKILL.md`` per skill.

Levels, highest first: project (``<root>/.qwen/skills``, ``<root>/.agents/skills``;
skipped when the project root is the home directory, where they would be the
user's own dirs under another name), user (``<config dir>/skills``,
``~/.agents/skills``), bundled (shipped inside the ``app`` package). The first
skill with a name wins; later ones are recorded as shadowed.

Every failure becomes a :class:`SkillProblem`: one unreadable directory or
broken skill never hides the others.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.context.instructions.fspaths import TRAVERSAL_MESSAGE, is_within
from app.context.skills.model import ALL_LEVELS, SKILL_FILE, Skill, SkillErrorCode, SkillLevel, SkillProblem
from app.context.skills.parse import load_skill

PROVIDER_DIRS = (".qwen", ".agents")  # in priority order
SKILLS_DIR = "skills"


@dataclass(frozen=True)
class SkillsDir:
    """One directory skills are looked for in, and the level its skills get."""

    level: SkillLevel
    path: Path
    # Where a skill found here may resolve to through symlinks (none: anywhere, for bundled skills).
    roots: tuple[Path, ...] = field(default=(), compare=False)


@dataclass
class Discovery:
    """What a search of the skills dirs found: the skills that win, the ones they hide, and the problems."""

    skills: list[Skill] = field(default_factory=list)  # the winners, in priority order
    shadowed: list[tuple[Skill, Skill]] = field(default_factory=list)  # (hidden skill, the one that wins)
    problems: list[SkillProblem] = field(default_factory=list)
    dirs: list[SkillsDir] = field(default_factory=list)  # every dir looked at, existing or not


def user_skills_dir(config_dir: Path) -> Path:
    return config_dir / SKILLS_DIR


def ensure_user_skills_dir(config_dir: Path) -> Path:
    """Create the user's skills dir when someone wants to put a skill there (e.g. "open folder")."""
    path = user_skills_dir(config_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path


def bundled_skills_dir() -> Path | None:
    """The skills shipped with the app: top-level bundled_skills/ in a checkout, inside the package in a wheel."""
    from app.shipped import BUNDLED_SKILLS, shipped_dir

    return shipped_dir(BUNDLED_SKILLS)


def skills_dirs(
    project_root: Path,
    config_dir: Path,
    home: Path,
    *,
    trusted: bool = True,
    levels: Iterable[SkillLevel] = ALL_LEVELS,
) -> list[SkillsDir]:
    """The skills dirs to scan, highest priority first; an untrusted project contributes none."""
    wanted = set(levels)
    found: list[SkillsDir] = []
    if SkillLevel.PROJECT in wanted and trusted and not _same_dir(project_root, home):
        found += [SkillsDir(SkillLevel.PROJECT, project_root / provider / SKILLS_DIR, (project_root,)) for provider in PROVIDER_DIRS]
    if SkillLevel.USER in wanted:
        user_roots = (config_dir, home / ".agents")
        found.append(SkillsDir(SkillLevel.USER, user_skills_dir(config_dir), user_roots))
        found.append(SkillsDir(SkillLevel.USER, home / ".agents" / SKILLS_DIR, user_roots))
    bundled = bundled_skills_dir()
    if SkillLevel.BUNDLED in wanted and bundled is not None:
        found.append(SkillsDir(SkillLevel.BUNDLED, bundled))
    return _without_repeats(found)


def discover_skills(
    project_root: Path,
    config_dir: Path,
    home: Path,
    *,
    trusted: bool = True,
    levels: Iterable[SkillLevel] = ALL_LEVELS,
) -> Discovery:
    result = Discovery(dirs=skills_dirs(project_root, config_dir, home, trusted=trusted, levels=levels))
    winners: dict[str, Skill] = {}
    for directory in result.dirs:
        skills, problems = scan_skills_dir(directory)
        result.problems += problems
        for skill in skills:
            winner = winners.get(skill.name)
            if winner is None:
                winners[skill.name] = skill
                result.skills.append(skill)
            else:
                result.shadowed.append((skill, winner))
    return result


def scan_skills_dir(directory: SkillsDir) -> tuple[list[Skill], list[SkillProblem]]:
    """Skills in one dir, sorted by entry name so the first-wins choice never depends on the filesystem."""
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    try:
        with os.scandir(directory.path) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except FileNotFoundError:
        return skills, problems
    except OSError as exc:
        message = f"Cannot read skills directory: {exc.strerror or exc}"
        return skills, [SkillProblem(directory.path, SkillErrorCode.FILE_ERROR, message, directory.level)]
    for entry in entries:
        try:
            loaded = _load_entry(entry, directory.level, directory.roots)
        except Exception as exc:  # noqa: BLE001 - one odd entry must not stop the rest of the level
            loaded = SkillProblem(
                Path(entry.path), SkillErrorCode.FILE_ERROR, f"Cannot load skill: {exc}", directory.level
            )
        if isinstance(loaded, Skill):
            skills.append(loaded)
        elif loaded is not None:
            problems.append(loaded)
    return skills, problems


def _load_entry(entry: os.DirEntry[str], level: SkillLevel, roots: tuple[Path, ...] = ()) -> Skill | SkillProblem | None:
    """A skill, a problem, or None for an entry that is simply not a skill (a README, a hidden file)."""
    path = Path(entry.path)
    if entry.name.startswith("."):
        return None
    escape = _escaping(path, roots)
    if escape is not None:
        return SkillProblem(path, SkillErrorCode.FILE_ERROR, f"Cannot load skill: {escape}", level)
    try:
        # Followed: a skill folder may be a symlink, as long as it stays inside the project (or the user's dirs).
        info = os.stat(path)
    except OSError as exc:
        return SkillProblem(path, SkillErrorCode.FILE_ERROR, _unreachable(path, entry, exc), level)
    if stat.S_ISREG(info.st_mode):
        return None
    if not stat.S_ISDIR(info.st_mode):
        message = f"Cannot load skill: {path} is a {_kind(info.st_mode)}, not a directory holding {SKILL_FILE}"
        return SkillProblem(path, SkillErrorCode.FILE_ERROR, message, level)
    skill_file = path / SKILL_FILE
    if not os.path.lexists(skill_file):
        return _misnamed_skill_file(path, level)
    return load_skill(skill_file, level)


def _escaping(path: Path, roots: tuple[Path, ...]) -> str | None:
    """A project skill linking out of the repository reads whatever the link names (an import of it is refused too)."""
    if not roots:
        return None
    for candidate in (path, path / SKILL_FILE):
        if not os.path.lexists(candidate):
            continue
        real = os.path.realpath(candidate)
        if not any(is_within(real, os.path.realpath(root)) for root in roots):
            return f"{TRAVERSAL_MESSAGE} - it links to {real}, outside {roots[0]}"
    return None


def _unreachable(path: Path, entry: os.DirEntry[str], exc: OSError) -> str:
    if entry.is_symlink():
        if exc.errno == errno.ELOOP:
            return f"Cannot load skill: the symlink {path} loops back on itself"
        if exc.errno == errno.ENOENT:
            return f"Cannot load skill: the symlink {path} points to {os.readlink(path)}, which does not exist"
    return f"Cannot load skill: {exc.strerror or exc}: {path}"


def _misnamed_skill_file(path: Path, level: SkillLevel) -> SkillProblem | None:
    """A folder with ``skill.md`` instead of ``SKILL.md`` is a common reason a skill "is not found"."""
    try:
        names = os.listdir(path)
    except OSError:
        return None
    wrong = next((name for name in sorted(names) if name.lower() == SKILL_FILE.lower()), None)
    if wrong is None:
        return None
    message = f"Cannot load skill: found {wrong}, but the file must be named {SKILL_FILE}"
    return SkillProblem(path / wrong, SkillErrorCode.NOT_FOUND, message, level)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _same_dir(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _without_repeats(dirs: list[SkillsDir]) -> list[SkillsDir]:
    """Drop a dir already listed under another name (a symlinked config dir) so skills don't shadow themselves."""
    seen: set[str] = set()
    unique: list[SkillsDir] = []
    for directory in dirs:
        real = os.path.realpath(directory.path)
        if real not in seen:
            seen.add(real)
            unique.append(directory)
    return unique
