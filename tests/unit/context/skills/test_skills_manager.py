"""SkillManager: statuses, enable/disable, activation, snapshot and delta reminders, change signals."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.events import SKILLS_ON_DISK
from app.core.status import StatusRelay, no_status
from app.context.skills.listing import skill_entry
from app.context.skills.manager import SkillManager
from app.context.skills.model import SkillInvocation, SkillLevel, SkillStatus
from tests.unit.skills_support import write_raw, write_skill

LEVELS = (SkillLevel.PROJECT, SkillLevel.USER)


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "repo"
    root.mkdir()
    return {
        "root": root,
        "config": tmp_path / "config",
        "home": tmp_path / "home",
        "project": root / ".qwen" / "skills",
    }


def make(dirs: dict[str, Path], disabled: tuple[str, ...] = (), levels=LEVELS, status=no_status) -> SkillManager:  # type: ignore[no-untyped-def]
    return SkillManager(dirs["root"], dirs["config"], dirs["home"], disabled, levels=levels, status=status)


def statuses(manager: SkillManager) -> dict[str, SkillStatus]:
    return {entry.name: entry.status for entry in manager.skills}


def test_every_status(dirs: dict[str, Path]) -> None:
    project = dirs["project"]
    write_skill(project, "plain")
    write_skill(project, "gated", paths=["src/**", "[z-a]"])
    write_skill(project, "manual", disable_model_invocation=True)
    write_skill(project, "off")
    write_raw(project / "broken" / "SKILL.md", "no frontmatter here")
    write_skill(dirs["config"] / "skills", "plain", description="user copy")
    manager = make(dirs, disabled=("OFF",))
    rows = [(entry.name, entry.level, entry.status) for entry in manager.skills]
    assert rows == [  # by level, then name
        ("broken", SkillLevel.PROJECT, SkillStatus.ERROR),
        ("gated", SkillLevel.PROJECT, SkillStatus.WAITING),
        ("manual", SkillLevel.PROJECT, SkillStatus.USER_ONLY),
        ("off", SkillLevel.PROJECT, SkillStatus.DISABLED),
        ("plain", SkillLevel.PROJECT, SkillStatus.AVAILABLE),
        ("plain", SkillLevel.USER, SkillStatus.SHADOWED),
    ]
    by_status = {entry.status: entry for entry in manager.skills}
    assert (
        by_status[SkillStatus.ERROR].message == "Failed to parse skill file: Invalid format: missing YAML frontmatter"
    )
    assert by_status[SkillStatus.SHADOWED].message == f"shadowed by {project / 'plain' / 'SKILL.md'}"
    assert by_status[SkillStatus.WAITING].message.startswith('Invalid glob in "paths": [z-a] — ')
    assert [problem.key for problem in manager.problems] == [
        str(project / "broken" / "SKILL.md"),
        f"{project / 'gated' / 'SKILL.md'}#paths[[z-a]]",
    ]
    assert [skill.name for skill in manager.available()] == ["plain"]


def test_set_disabled_is_case_insensitive_and_signals_changes(dirs: dict[str, Path]) -> None:
    write_skill(dirs["project"], "Lint")
    relay = StatusRelay()
    manager = make(dirs, status=relay)
    calls: list[int] = []
    unsubscribe = relay.connect(lambda status: calls.append(manager.version) if status.source == SKILLS_ON_DISK else None)
    start = manager.version
    assert manager.set_disabled("lint", True) is True
    assert manager.disabled == frozenset({"lint"})
    assert manager.available() == []
    assert manager.set_disabled("LINT", True) is False  # already off: no change, no signal
    assert manager.set_disabled("Lint", False) is True
    assert calls == [start + 1, start + 2]
    unsubscribe()
    manager.set_disabled("lint", True)
    assert len(calls) == 2


def test_a_failing_listener_does_not_stop_the_others(dirs: dict[str, Path]) -> None:
    write_skill(dirs["project"], "a")
    relay = StatusRelay()
    manager = make(dirs, status=relay)
    seen: list[str] = []
    relay.connect(lambda status: 1 / 0)  # type: ignore[arg-type,return-value]
    relay.connect(lambda status: seen.append("ok"))
    assert manager.set_disabled("a", True) is True
    assert seen == ["ok"] and manager.disabled == frozenset({"a"})


def test_snapshot_then_deltas(dirs: dict[str, Path]) -> None:
    write_skill(dirs["project"], "always", description="Always here.")
    write_skill(dirs["project"], "ts", description="TypeScript rules.", paths=["**/*.ts"])
    manager = make(dirs)
    snapshot = manager.snapshot_reminder()
    assert "\nalways\n" in snapshot and "\nts\n" not in snapshot
    assert manager.delta_reminder() == ""

    assert manager.observe_paths([dirs["root"] / "web" / "app.ts"]) == ["ts"]
    delta = manager.delta_reminder()
    assert skill_entry(manager.get("ts")) in delta  # type: ignore[arg-type]
    assert "\nalways\n" not in delta
    assert manager.delta_reminder() == ""

    manager.set_disabled("always", True)
    assert manager.delta_reminder().endswith("No longer available; do not invoke: always\n</system-reminder>")

    write_skill(dirs["project"], "ts", description="TypeScript rules, v2.", paths=["**/*.ts"])
    manager.reload()
    assert manager.get("ts").description == "TypeScript rules, v2."  # type: ignore[union-attr]
    assert "TypeScript rules, v2." in manager.delta_reminder()  # still active: its paths did not change


def test_identical_sets_give_identical_snapshots(dirs: dict[str, Path]) -> None:
    for name in ("b", "a", "c"):
        write_skill(dirs["project"], name)
    first = make(dirs).snapshot_reminder()
    second = make(dirs).snapshot_reminder()
    assert first == second and first


def test_reload_reports_whether_anything_changed(dirs: dict[str, Path]) -> None:
    write_skill(dirs["project"], "a")
    manager = make(dirs)
    version = manager.version
    assert manager.reload() is False
    assert manager.version == version
    write_skill(dirs["project"], "b")
    assert manager.reload() is True
    assert manager.version == version + 1
    assert [s.name for s in manager.available()] == ["a", "b"]


def test_an_edited_paths_glob_resets_activation(dirs: dict[str, Path]) -> None:
    write_skill(dirs["project"], "docs", paths=["docs/**"])
    manager = make(dirs)
    manager.observe_paths(["docs/x.md"])
    assert statuses(manager)["docs"] is SkillStatus.AVAILABLE
    write_skill(dirs["project"], "docs", paths=["manual/**"])
    manager.reload()
    assert statuses(manager)["docs"] is SkillStatus.WAITING


def test_invocations_are_kept_for_reattachment(dirs: dict[str, Path]) -> None:
    manager = make(dirs)
    first = SkillInvocation("a", SkillLevel.USER, Path("/a"), "A body")
    second = SkillInvocation("b", SkillLevel.USER, Path("/b"), "B body")
    manager.record_invocation(first)
    manager.record_invocation(second)
    manager.record_invocation(first)
    assert list(manager.invoked) == ["b", "a"]
    assert manager.is_loaded("a")
    manager.mark_unloaded("a")
    assert not manager.is_loaded("a") and list(manager.invoked) == ["b"]


def test_watch_dirs_are_the_project_and_user_dirs(dirs: dict[str, Path]) -> None:
    manager = make(dirs, levels=(SkillLevel.PROJECT, SkillLevel.USER, SkillLevel.BUNDLED))
    assert manager.watch_dirs() == [
        dirs["project"],
        dirs["root"] / ".agents" / "skills",
        dirs["config"] / "skills",
        dirs["home"] / ".agents" / "skills",
    ]
    assert {s.level for s in manager.available()} == {SkillLevel.BUNDLED}


def test_get_falls_back_to_a_unique_case_insensitive_match(dirs: dict[str, Path]) -> None:
    write_skill(dirs["project"], "Review")
    manager = make(dirs)
    assert manager.get("review").name == "Review"  # type: ignore[union-attr]
    assert manager.get("nope") is None
