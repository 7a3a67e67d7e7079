"""Hot reload: watch the project and user skills dirs and reload the manager when a skill changes.

Only two levels are watched, ``<skills>/`` and ``<skills>/<skill>/``, each
without recursion: a skill is ``<skill>/SKILL.md``, and an unbounded watch
would crawl into whatever a skill folder holds (node_modules, a virtualenv)
and run out of file descriptors. Bundled skills never change and are not
watched.

A skills dir that does not exist yet is covered by watching its nearest
existing ancestor (again without recursion) for the one name on the way to
it, e.g. ``.qwen`` appearing in the project root.

The watched set is rebuilt after every reload (a new skill folder must be
watched too). Changes made while the watch is being re-armed would be missed,
so once the new watch reports itself idle the skill files' timestamps are
compared with those seen at the reload, and a difference triggers another.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import stat
from collections.abc import Iterable, Sequence
from contextlib import aclosing
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.context.skills.manager import SkillManager
from app.context.skills.model import SKILL_FILE

if TYPE_CHECKING:
    from watchfiles import Change

log = logging.getLogger(__name__)

WATCHER_MAX_DEPTH = 2
DEBOUNCE_MS = 150
# After this long without events the watch yields once, which tells us it is armed.
_IDLE_CHECK_MS = 500
# Events are grouped for at most this long when they never stop arriving (a big checkout).
_MAX_BATCH_MS = 1_600
_RETRY_SECONDS = 1.0

Fingerprint = tuple[tuple[str, int | None, int | None], ...]


@dataclass(frozen=True)
class WatchPlan:
    """The directories to watch so that a change to any skill in the given skills dirs is seen."""

    paths: tuple[str, ...]  # every one exists and is watched without recursion
    targets: tuple[str, ...]  # the skills dirs these paths stand for


async def watch_skills(
    manager: SkillManager,
    stop_event: asyncio.Event,
    *,
    debounce_ms: int = DEBOUNCE_MS,
    force_polling: bool | None = None,
) -> None:
    """Reload ``manager`` after skill files change (quiet for ``debounce_ms``), until ``stop_event`` is set."""
    # Rescan once at the start: whatever changed since the manager's own scan would otherwise go unseen.
    seen = await _reload(manager)
    while not stop_event.is_set():
        plan = await asyncio.to_thread(plan_watch, manager.watch_dirs())
        try:
            changed = await _wait_for_change(plan, stop_event, seen, debounce_ms, force_polling)
        except (OSError, RuntimeError) as exc:  # a dir vanished while arming, or the OS ran out of watches
            log.warning("skills watch failed (%s); retrying", exc)
            if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) in (errno.EMFILE, errno.ENOSPC):
                force_polling = True  # native watching is unavailable; polling a few dirs is cheap
            await _sleep_unless_stopped(stop_event, _RETRY_SECONDS)
            continue
        if not changed:
            return
        seen = await _reload(manager)


async def _reload(manager: SkillManager) -> Fingerprint:
    """Scan in a worker thread, apply on the loop; returns the files' state as of just before the scan."""
    seen = await asyncio.to_thread(fingerprint, manager.watch_dirs())
    manager.apply(await asyncio.to_thread(manager.scan))
    return seen


def plan_watch(targets: Iterable[Path | str]) -> WatchPlan:
    """The dirs to watch: each existing skills dir and its skill folders, else the nearest existing ancestor."""
    paths: list[str] = []
    normalized = tuple(os.path.normpath(os.fspath(target)) for target in targets)
    for target in normalized:
        if os.path.isdir(target):
            paths.append(target)
            paths += _skill_folders(target)
        else:
            anchor = _nearest_existing_dir(target)
            if anchor is not None:
                paths.append(anchor)
    return WatchPlan(paths=tuple(dict.fromkeys(paths)), targets=normalized)


def fingerprint(targets: Iterable[Path | str]) -> Fingerprint:
    """Timestamps of the skills dirs, their entries and each SKILL.md: a change to any skill changes this."""
    items: list[tuple[str, int | None, int | None]] = []
    for target in map(os.fspath, targets):
        info = _stat(target)
        items.append((target, info.st_mtime_ns if info else None, None))
        if info is None or not stat.S_ISDIR(info.st_mode):
            continue
        for folder in _skill_folders(target):
            skill_file = _stat(os.path.join(folder, SKILL_FILE))
            folder_info = _stat(folder)
            items.append((folder, folder_info.st_mtime_ns if folder_info else None, None))
            size = skill_file.st_size if skill_file else None
            items.append((os.path.join(folder, SKILL_FILE), skill_file.st_mtime_ns if skill_file else None, size))
    return tuple(items)


class SkillsWatchFilter:
    """Which events matter: at most two levels below a skills dir, or a dir on the way to one."""

    def __init__(self, targets: Sequence[str]) -> None:
        self.targets = tuple(targets)

    def __call__(self, change: Change, path: str) -> bool:
        path = os.path.normpath(path)
        return any(self._relevant(path, target) for target in self.targets) and not _is_special_file(path)

    @staticmethod
    def _relevant(path: str, target: str) -> bool:
        if path == target:
            return True
        prefix = target + os.sep
        if path.startswith(prefix):
            parts = path[len(prefix) :].split(os.sep)
            return len(parts) <= WATCHER_MAX_DEPTH and ".git" not in parts
        return target.startswith(path + os.sep)  # an ancestor of the skills dir appeared or vanished


async def _wait_for_change(
    plan: WatchPlan, stop_event: asyncio.Event, seen: Fingerprint, debounce_ms: int, force_polling: bool | None
) -> bool:
    """True on a relevant change; False once ``stop_event`` is set."""
    if not plan.paths:
        await stop_event.wait()
        return False
    from watchfiles import awatch  # imported here: the Rust extension is not needed to start the app

    checked = False
    watcher = awatch(
        *plan.paths,
        watch_filter=SkillsWatchFilter(plan.targets),
        recursive=False,
        step=debounce_ms,
        debounce=max(_MAX_BATCH_MS, debounce_ms),
        stop_event=stop_event,
        rust_timeout=_IDLE_CHECK_MS,
        yield_on_timeout=True,
        force_polling=force_polling,
        poll_delay_ms=debounce_ms,
        ignore_permission_denied=True,
    )
    async with aclosing(watcher) as batches:
        async for changes in batches:
            if changes:
                return True
            if not checked:
                checked = True
                if await asyncio.to_thread(fingerprint, plan.targets) != seen:
                    return True
    return False


def _skill_folders(skills_dir: str) -> list[str]:
    try:
        with os.scandir(skills_dir) as entries:
            return sorted(entry.path for entry in entries if not entry.name.startswith(".") and _is_dir(entry))
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks: a linked skill folder is watched through its link
    except OSError:
        return False


def _nearest_existing_dir(path: str) -> str | None:
    current = os.path.dirname(path)
    while current and not os.path.isdir(current):
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return current or None


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _is_special_file(path: str) -> bool:
    """Sockets, FIFOs and devices: nothing a skill is made of (a deleted path is not special)."""
    info = _stat(path)
    return info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode))


async def _sleep_unless_stopped(stop_event: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(stop_event.wait(), timeout=seconds)
    except TimeoutError:
        pass
