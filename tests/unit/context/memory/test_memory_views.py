"""The words and arrangements the memory panel and CLI show: task lines, groups, filters, forget previews."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.memory.forget import forget_candidates
from app.context.memory.forget import describe_item, forget_preview
from app.context.memory.paths import MemoryScope
from app.context.memory.entry import filter_entries, group_entries
from app.context.memory.tasks import TaskState, describe_task, memory_activity
from tests.unit.memory_support import entry

AT = 1_790_000_000.0  # 2026-09-21 14:13 UTC


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@pytest.mark.parametrize(
    ("task", "meta", "line"),
    [
        (TaskState("extraction"), {}, "not run yet"),
        (TaskState("extraction"), {"last_run_at": AT, "last_status": "updated"}, "last run 2026-09-21 14:13 (memories changed)"),
        (TaskState("extraction", "running", "reading 3 new message(s)"), {}, "running — reading 3 new message(s)"),
        (TaskState("extraction", "queued", "waiting for the running extraction"), {}, "queued — waiting for the running extraction"),
        (TaskState("extraction", "done", "saved 2 memories", AT), {}, "last run 2026-09-21 14:13 — saved 2 memories"),
        (TaskState("extraction", "failed", "cancelled", AT), {}, "failed 2026-09-21 14:13 — cancelled"),
        (TaskState("dream", "skipped", "min_sessions"), {"last_run_at": AT}, "skipped — too few sessions since the last consolidation · last run 2026-09-21 14:13"),
        (TaskState("dream", "skipped", "no model endpoint"), {}, "skipped — no model endpoint · not run yet"),
    ],
)
def test_task_lines(task: TaskState, meta: dict, line: str) -> None:
    assert describe_task(task, **meta) == line


def test_the_status_line_speaks_only_while_work_runs_or_waits() -> None:
    idle, running, queued = TaskState("x"), TaskState("x", "running"), TaskState("x", "queued")
    assert memory_activity(idle, idle) == ""
    assert memory_activity(running, idle) == "memory: extracting…"
    assert memory_activity(running, running) == "memory: extracting and consolidating…"
    assert memory_activity(idle, running) == "memory: consolidating…"
    assert memory_activity(queued, idle) == "memory: extraction queued"
    assert memory_activity(TaskState("x", "failed"), idle) == ""


def test_groups_follow_scope_then_type_order_with_unusable_last() -> None:
    entries = [
        entry("tabs", "prefers tabs", memory_type="user", scope=MemoryScope.USER),
        entry("freeze", "release freeze", memory_type="project"),
        entry("mocks", "no mocks", memory_type="feedback"),
        entry("broken", "x", memory_type="nonsense"),
        entry("wiki", "where docs live", memory_type="reference"),
    ]
    groups = [(g.scope.value, g.topic, [e.title for e in g.entries]) for g in group_entries(entries)]
    assert groups == [
        ("project", "feedback", ["mocks"]),
        ("project", "project", ["freeze"]),
        ("project", "reference", ["wiki"]),
        ("project", "not used", ["broken"]),
        ("user", "user", ["tabs"]),
    ]


def test_the_filter_wants_every_word_somewhere_in_the_memory() -> None:
    entries = [entry("tabs", "prefers tabs over spaces", "Use tabs in Go.", memory_type="user"), entry("mocks", "no mocks", "Use the real database.")]
    assert [e.title for e in filter_entries(entries, "TABS go")] == ["tabs"]
    assert [e.title for e in filter_entries(entries, "use")] == ["tabs", "mocks"]
    assert [e.title for e in filter_entries(entries, "  ")] == ["tabs", "mocks"]
    assert filter_entries(entries, "tabs database") == []


def test_a_forget_preview_says_whether_the_file_goes_or_stays() -> None:
    bullets = entry("deploys", "how deploys go", "- on tuesdays\n- tag every release\n- never on fridays", rel_path="project/deploys.md")
    single = entry("tabs", "prefers tabs", "Use tabs.", memory_type="user", rel_path="user/tabs.md")
    candidates = {c.id: c for c in forget_candidates([bullets, single])}
    partial = forget_preview([candidates["project/deploys.md:2"], candidates["user/tabs.md"]])
    assert [describe_item(item, item.path.name) for item in partial] == [
        "deploys.md — 1 of its 3 entries (the file stays): “never on fridays”",
        "tabs.md — the whole file",
    ]
    every = forget_preview([candidates[f"project/deploys.md:{i}"] for i in range(3)])
    assert [(item.path, item.whole_file) for item in every] == [(Path("/mem/project/project/deploys.md"), True)]
