"""The session's skills: what was found, what the model may use right now, and what changed.

One object the agent, the skill tool, the watcher and the /skills panel share.
Changes happen on one thread (the event loop); only :meth:`SkillManager.scan`,
which touches the disk and no state, may run in a worker thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from app.core.events import SKILLS_ON_DISK, BackgroundStatus
from app.core.status import StatusSink, no_status
from app.context.skills.activation import SkillActivator
from app.context.skills.discovery import Discovery, discover_skills
from app.context.skills.listing import delta_reminder, listing_entries, snapshot_from_entries
from app.context.skills.model import (
    ALL_LEVELS,
    Skill,
    SkillEntry,
    SkillInvocation,
    SkillLevel,
    SkillProblem,
    SkillStatus,
)


class SkillManager:
    def __init__(
        self,
        project_root: Path,
        config_dir: Path,
        home: Path,
        disabled: Iterable[str] = (),
        *,
        trusted: bool = True,
        levels: Iterable[SkillLevel] = ALL_LEVELS,
        status: StatusSink = no_status,
    ) -> None:
        self.project_root = Path(project_root)
        self.config_dir = Path(config_dir)
        self.home = Path(home)
        self.trusted = trusted
        self.levels = tuple(levels)
        self._disabled = {name.lower() for name in disabled}
        self._discovery = Discovery()
        self._activator = SkillActivator(self.project_root, ())
        self._entries: list[SkillEntry] = []
        self._announced: dict[str, str] | None = None  # what the model was last told
        self._loaded: set[str] = set()
        self.publish = status  # told after every change a viewer could see
        # Skills the model loaded this session, oldest first, for re-attachment after compaction.
        self.invoked: dict[str, SkillInvocation] = {}
        # Which touched path activated each conditional skill this session (shown in the panel).
        self.activated_by: dict[str, str] = {}
        # Bumped on every change a viewer could see; the UI compares it to know when to redraw.
        self.version = 0
        self.reload()

    # -- what there is ---------------------------------------------------------------

    @property
    def skills(self) -> list[SkillEntry]:
        """Every skill found, broken and shadowed ones included, by level then name."""
        return list(self._entries)

    @property
    def problems(self) -> list[SkillProblem]:
        return self._discovery.problems + self._activator.problems

    @property
    def disabled(self) -> frozenset[str]:
        return frozenset(self._disabled)

    def available(self) -> list[Skill]:
        """The skills the model may invoke now, by name."""
        chosen = [entry.skill for entry in self._entries if entry.status is SkillStatus.AVAILABLE and entry.skill]
        return sorted(chosen, key=lambda skill: skill.name)

    def get(self, name: str) -> Skill | None:
        """The skill that wins for ``name``; an exact match first, then one differing only in case."""
        by_name = {skill.name: skill for skill in self._discovery.skills}
        if name in by_name:
            return by_name[name]
        folded = [skill for skill in self._discovery.skills if skill.name.lower() == name.lower()]
        return folded[0] if len(folded) == 1 else None

    def status(self, skill: Skill) -> SkillStatus:
        if skill.name.lower() in self._disabled:
            return SkillStatus.DISABLED
        if skill.disable_model_invocation:
            return SkillStatus.USER_ONLY
        if not self._activator.is_active(skill.name):
            return SkillStatus.WAITING
        return SkillStatus.AVAILABLE

    def watch_dirs(self) -> list[Path]:
        """The skills dirs hot reload watches: project and user ones (bundled skills never change)."""
        return [directory.path for directory in self._discovery.dirs if directory.level is not SkillLevel.BUNDLED]

    # -- changes ----------------------------------------------------------------------

    def scan(self) -> Discovery:
        """Read every skills dir; no state is touched, so a worker thread may run this."""
        return discover_skills(self.project_root, self.config_dir, self.home, trusted=self.trusted, levels=self.levels)

    def apply(self, discovery: Discovery) -> bool:
        """Make ``discovery`` current; True when anything visible changed."""
        self._discovery = discovery
        self._activator = SkillActivator(self.project_root, discovery.skills, previous=self._activator)
        return self._refresh()

    def reload(self) -> bool:
        return self.apply(self.scan())

    def set_disabled(self, name: str, disabled: bool) -> bool:
        """Turn a skill off or on (``skills.disabled`` holds names lower-cased); True when it changed."""
        key = name.lower()
        if (key in self._disabled) == disabled:
            return False
        if disabled:
            self._disabled.add(key)
        else:
            self._disabled.discard(key)
        return self._refresh()

    def observe_paths(self, paths: Iterable[str | Path]) -> list[str]:
        """Feed the paths a tool call touched; returns the conditional skills this activated."""
        paths = list(paths)
        newly = self._activator.observe_paths(paths)
        for name in newly:
            self.activated_by.setdefault(name, str(paths[0]) if paths else "")
        if newly:
            self._refresh()
        return newly

    # -- what the model is told -----------------------------------------------------------

    def snapshot_reminder(self) -> str:
        """The full ``<available_skills>`` reminder (session start, or after compaction); resets the delta base."""
        self._announced = listing_entries(self.available())
        return snapshot_from_entries(self._announced)

    def delta_reminder(self) -> str:
        """What changed since the last snapshot or delta; "" when nothing did."""
        current = listing_entries(self.available())
        text = delta_reminder(self._announced or {}, current)
        self._announced = current
        return text

    # -- invocations ----------------------------------------------------------------------

    def is_loaded(self, name: str) -> bool:
        return name in self._loaded

    def record_invocation(self, invocation: SkillInvocation) -> None:
        self.invoked.pop(invocation.name, None)  # re-inserted: the order is the order of the latest loads
        self.invoked[invocation.name] = invocation
        self._loaded.add(invocation.name)
        self._changed()

    def mark_unloaded(self, name: str) -> None:
        """The skill's content left the context (/unskill, or a compaction that dropped it)."""
        if name in self._loaded:
            self._loaded.discard(name)
            self.invoked.pop(name, None)
            self._changed()

    # -- internals ----------------------------------------------------------------------

    def _refresh(self) -> bool:
        entries = self._build_entries()
        if entries == self._entries:
            return False
        self._entries = entries
        self._changed()
        return True

    def _build_entries(self) -> list[SkillEntry]:
        glob_problems: dict[Path, list[str]] = {}
        for problem in self._activator.problems:
            glob_problems.setdefault(problem.path, []).append(problem.message)
        entries = [
            SkillEntry(
                skill.name,
                skill.level,
                skill.path,
                self.status(skill),
                skill,
                "; ".join(glob_problems.get(skill.path, [])),
            )
            for skill in self._discovery.skills
        ]
        entries += [
            SkillEntry(
                hidden.name, hidden.level, hidden.path, SkillStatus.SHADOWED, hidden, f"shadowed by {winner.path}"
            )
            for hidden, winner in self._discovery.shadowed
        ]
        entries += [
            SkillEntry(_problem_name(problem), problem.level, problem.path, SkillStatus.ERROR, None, problem.message)
            for problem in self._discovery.problems
        ]
        order = {level: index for index, level in enumerate(SkillLevel)}
        entries.sort(key=lambda entry: (order.get(entry.level, len(order)), entry.name, str(entry.path)))
        return entries

    def _changed(self) -> None:
        self.version += 1
        self.publish(BackgroundStatus(source=SKILLS_ON_DISK, state=str(self.version)))


def _problem_name(problem: SkillProblem) -> str:
    """A broken skill has no parsed name; its folder is what the person knows it by."""
    path = problem.path
    return path.parent.name if path.name.lower() == "skill.md" else path.name
