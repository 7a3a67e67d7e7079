"""Hot reload: a real temp tree, a running watcher, and the manager following add, edit and remove."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from watchfiles import Change

from app.context.skills.manager import SkillManager
from app.context.skills.model import SkillLevel
from app.context.skills.watch import SkillsWatchFilter, fingerprint, plan_watch, watch_skills
from tests.unit.skills_support import write_raw, write_skill

LEVELS = (SkillLevel.PROJECT, SkillLevel.USER)
TIMEOUT = 15.0


async def eventually(condition: Callable[[], bool], what: str) -> None:
    """Poll until ``condition`` holds; fails after a generous timeout, never asserts on timing."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not condition():
        if loop.time() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
async def watched(root: Path) -> AsyncIterator[SkillManager]:
    manager = SkillManager(root, root.parent / "config", root.parent / "home", levels=LEVELS)
    stop = asyncio.Event()
    task = asyncio.create_task(watch_skills(manager, stop))
    yield manager
    stop.set()
    await asyncio.wait_for(task, TIMEOUT)


def names(manager: SkillManager) -> list[str]:
    return [skill.name for skill in manager.available()]


async def test_add_edit_and_remove_a_skill(root: Path) -> None:
    skills = root / ".qwen" / "skills"
    write_skill(skills, "first")
    manager = SkillManager(root, root.parent / "config", root.parent / "home", levels=LEVELS)
    stop = asyncio.Event()
    task = asyncio.create_task(watch_skills(manager, stop))
    try:
        await asyncio.sleep(0)  # let the watcher start; anything it misses while arming is caught by its idle check
        write_skill(skills, "second")
        await eventually(lambda: names(manager) == ["first", "second"], "the added skill")

        write_skill(skills, "second", description="Edited.")
        await eventually(lambda: manager.get("second").description == "Edited.", "the edit")  # type: ignore[union-attr]

        shutil.rmtree(skills / "first")
        await eventually(lambda: names(manager) == ["second"], "the removal")
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)


async def test_skills_dirs_created_later_are_noticed(watched: SkillManager, root: Path) -> None:
    assert names(watched) == []
    write_skill(root / ".agents" / "skills", "late")  # neither .agents nor skills existed
    await eventually(lambda: names(watched) == ["late"], "a skill in a new skills dir")
    write_skill(root.parent / "home" / ".agents" / "skills", "user-late")
    await eventually(lambda: names(watched) == ["late", "user-late"], "a skill in the user's new dir")


async def test_a_broken_edit_shows_up_as_a_problem(watched: SkillManager, root: Path) -> None:
    path = write_skill(root / ".qwen" / "skills", "fragile")
    await eventually(lambda: names(watched) == ["fragile"], "the skill")
    path.write_text("---\nname: fragile\n---\nbody\n", encoding="utf-8")
    await eventually(lambda: [p.path for p in watched.problems] == [path], "the problem")
    assert names(watched) == []


async def test_the_watcher_stops_when_asked(root: Path) -> None:
    manager = SkillManager(root, root.parent / "config", root.parent / "home", levels=LEVELS)
    stop = asyncio.Event()
    task = asyncio.create_task(watch_skills(manager, stop))
    await asyncio.sleep(0)
    stop.set()
    await asyncio.wait_for(task, TIMEOUT)
    assert task.done() and task.exception() is None


def test_plan_watches_two_levels_without_recursion_and_anchors_missing_dirs(tmp_path: Path) -> None:
    skills = tmp_path / "repo" / ".qwen" / "skills"
    write_skill(skills, "a")
    write_raw(skills / "a" / "scripts" / "deep" / "x.sh", "echo")
    write_raw(skills / "notes.md", "n")
    missing = tmp_path / "repo" / ".agents" / "skills"
    plan = plan_watch([skills, missing])
    assert plan.paths == (str(skills), str(skills / "a"), str(tmp_path / "repo"))


def test_filter_keeps_depth_two_and_drops_git_deeper_and_unrelated_paths(tmp_path: Path) -> None:
    skills = str(tmp_path / "repo" / ".qwen" / "skills")
    keep = SkillsWatchFilter([skills])
    assert keep(Change.added, skills)
    assert keep(Change.added, f"{skills}/new")
    assert keep(Change.modified, f"{skills}/new/SKILL.md")
    assert not keep(Change.modified, f"{skills}/new/scripts/run.sh")  # depth 3
    assert not keep(Change.modified, f"{skills}/.git/index")
    assert not keep(Change.modified, f"{skills}/new/.git")
    assert keep(Change.added, str(tmp_path / "repo" / ".qwen"))  # on the way to the skills dir
    assert not keep(Change.modified, str(tmp_path / "repo" / "README.md"))


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="needs FIFOs")
def test_filter_ignores_fifos(tmp_path: Path) -> None:
    import os

    skills = tmp_path / "skills"
    skills.mkdir()
    os.mkfifo(skills / "pipe")
    assert not SkillsWatchFilter([str(skills)])(Change.added, str(skills / "pipe"))


def test_fingerprint_changes_with_any_skill_file(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    path = write_skill(skills, "a")
    before = fingerprint([skills])
    path.write_text(path.read_text() + "more\n")
    assert fingerprint([skills]) != before
