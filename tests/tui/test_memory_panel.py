"""The memory panel (F5, /memory): grouped listing with ages and problems, j/k and arrows, Enter reads,
e edits in $EDITOR and rebuilds the index, d forgets only on y, / filters, and the live status strip."""

from __future__ import annotations

import contextlib
import stat
from pathlib import Path

import pytest
from textual.widgets import Input

from app.context.memory import MemoryScope, memory_paths
from app.paths import Paths
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.memory import MemoryScreen
from app.tui.screens.text_view import TextScreen
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import (
    SIZE,
    make_app,
    make_settings,
    notifications,
    ready,
    rendered_text,
    run_command,
    wait_until,
)
from tests.tui.memory_support import (
    NO_MOCKS,
    highlighted,
    open_panel,
    options,
    seed,
    select,
    status_strip,
)
from tests.unit.memory_support import memory_text, piece, put

SESSION_ID = "5e55104d-0000-4000-8000-000000000000"


@pytest.fixture(autouse=True)
def no_editor_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)


async def test_memories_are_grouped_by_scope_and_type_with_age_and_problems(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        shown = options(screen)
        assert shown[0] == "Project memory · feedback (1)"
        assert shown[1] == "no mocks in db tests  feedback/no-mocks.md · 47 days ago\n  integration tests must hit a real database, never mocks"
        assert shown[2:4] == ["Project memory · project (1)", "release freeze  project/release-freeze.md · yesterday\n  code freeze before the March release"]
        assert shown[4] == "Project memory · not used (2)"
        assert shown[5].startswith("[$accent]odd[/]  project/notes [draft].md · 3 days ago\n  x\n  ! the frontmatter is not valid YAML")
        assert "\n  ! unknown type 'nonsense' (expected one of user, feedback, project, reference); the file is ignored" in shown[5]
        assert shown[6].startswith("reference/broken.md  reference/broken.md · today\n  ! no frontmatter")
        assert shown[7:] == ["User memory · user (1)", "prefers tabs  user/tabs.md · 2 days ago\n  the user prefers tabs over spaces"]
        assert highlighted(screen) == "feedback/no-mocks.md", "the first memory, not a heading"


async def test_without_memories_the_panel_says_how_they_come(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        assert options(screen) == ["No memories yet. They are saved as you work, or when you ask (/remember)."]
        await pilot.press("enter", "e", "d")  # nothing selected: nothing happens
        assert app.screen is screen and not notifications(app)


async def test_j_k_and_the_arrows_move_over_memories_only(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        await pilot.press("j")
        assert highlighted(screen) == "project/release-freeze.md", "the heading in between is skipped"
        await pilot.press("down")
        assert highlighted(screen) == "project/notes [draft].md"
        await pilot.press("k")
        assert highlighted(screen) == "project/release-freeze.md"
        await pilot.press("up")
        assert highlighted(screen) == "feedback/no-mocks.md"


async def test_enter_reads_the_file_and_f5_or_escape_close(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="the file")
        assert app.screen.body == NO_MOCKS and app.screen.title_text == "no mocks in db tests"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="back in the panel")
        await pilot.press("f5")
        await wait_until(pilot, lambda: not isinstance(app.screen, MemoryScreen), what="F5 closes")
        await run_command(pilot, "/memory")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen), what="/memory opens it")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, MemoryScreen), what="esc closes")


def _fake_editor(tmp_path: Path, line: str) -> Path:
    script = tmp_path / "fake-editor"
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' '{line}' >> \"$1\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


async def test_e_opens_the_editor_then_rebuilds_the_index(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = seed(workspace)
    index = mem.index_file(MemoryScope.PROJECT)
    index.write_text("stale\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR", str(_fake_editor(tmp_path, "Also for the staging database.")))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        # The headless driver cannot give the terminal away; the real one does.
        app.suspend = contextlib.nullcontext  # type: ignore[method-assign]
        await ready(pilot)
        screen = await open_panel(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: notifications(app), what="edited")
        assert notifications(app) == ["Edited feedback/no-mocks.md; the project memory index is rebuilt."]
        assert (mem.project_root / "feedback" / "no-mocks.md").read_text(encoding="utf-8") == NO_MOCKS + "Also for the staging database.\n"
        rebuilt = index.read_text(encoding="utf-8")
        # A line a person wrote is kept where it was; the memory's link is added after it.
        assert rebuilt.startswith("stale\n") and "[no mocks in db tests](feedback/no-mocks.md)" in rebuilt
        assert app.screen is screen and highlighted(screen) == "feedback/no-mocks.md"


async def test_editing_a_team_memory_warns_of_a_secret(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = memory_paths(Paths.for_cwd(workspace))
    put(mem.team_root, "project/deploy.md", memory_text("deploy", "how we deploy", "project", "Tag, then push."))
    token = "gh" + "p_" + piece("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", 36)
    monkeypatch.setenv("EDITOR", str(_fake_editor(tmp_path, f"token {token}")))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        app.suspend = contextlib.nullcontext  # type: ignore[method-assign]
        await ready(pilot)
        await open_panel(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: notifications(app, "error"), what="warned")
        assert notifications(app, "error") == [
            "project/deploy.md now holds what looks like a secret (GitHub PAT); team memory is committed with the repository."
        ]
        assert "[deploy](project/deploy.md)" in mem.index_file(MemoryScope.TEAM).read_text(encoding="utf-8")


async def test_e_with_a_missing_editor_says_so(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(workspace)
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_panel(pilot)
        await pilot.press("e")
        assert notifications(app, "error") == [f"Editor '{tmp_path / 'no-such-editor'}' not found; set $VISUAL or $EDITOR to an installed editor."]


async def test_d_then_y_deletes_exactly_that_file_and_rebuilds_the_index(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    before = sorted(p for p in mem.project_root.rglob("*.md") if p.name != "MEMORY.md")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        select(screen, "project/release-freeze.md")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        target = mem.project_root / "project" / "release-freeze.md"
        assert app.screen.question == "Forget “release freeze”?"
        assert str(target) in app.screen.detail
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen, what="back in the panel")
        after = sorted(p for p in mem.project_root.rglob("*.md") if p.name != "MEMORY.md")
        assert after == [p for p in before if p != target]
        index = mem.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8")
        assert "release-freeze" not in index and "feedback/no-mocks.md" in index
        assert not any("release freeze" in o for o in options(screen))
        assert notifications(app) == ["Managed auto-memory forgot 1 entry from: project/"]


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_d_then_n_or_escape_deletes_nothing(key: str, fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)  # session start may rebuild a stale index: compare from here on
        before = {p: p.read_bytes() for p in mem.project_root.rglob("*") if p.is_file()}
        screen = await open_panel(pilot)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen is screen, what="back in the panel")
        assert {p: p.read_bytes() for p in mem.project_root.rglob("*") if p.is_file()} == before
        assert highlighted(screen) == "feedback/no-mocks.md"


async def test_d_on_a_broken_file_forgets_it_too(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        select(screen, "project/notes [draft].md")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen, what="back in the panel")
        assert not (mem.project_root / "project" / "notes [draft].md").exists()
        assert (mem.project_root / "project" / "release-freeze.md").exists()


async def test_slash_filters_and_escape_clears_then_closes(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    seed(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        await pilot.press("/")
        field = screen.query_one("#memory-filter", Input)
        assert field.display and field.has_focus
        field.insert_text_at_cursor("spac")
        await pilot.press("e", "s")  # typed keys go to the filter, not to the panel's keys (e edits)
        await wait_until(pilot, lambda: len(options(screen)) == 2, what="filtered")
        assert options(screen) == ["User memory · user (1)", "prefers tabs  user/tabs.md · 2 days ago\n  the user prefers tabs over spaces"]
        await pilot.press("enter")
        assert not field.has_focus and highlighted(screen) == "user/tabs.md", "Enter keeps the filter and goes to the list"
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(options(screen)) == 9, what="the filter cleared")
        assert not field.display and app.screen is screen
        await pilot.press("/")
        field.insert_text_at_cursor("zzz")
        await wait_until(pilot, lambda: options(screen) == ["Nothing matches “zzz”."], what="nothing matches")
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(options(screen)) == 9, what="esc in the field leaves it")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, MemoryScreen), what="closed")


async def test_the_status_strip_and_status_line_follow_the_tasks(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        manager = app.runtime.memory
        screen = await open_panel(pilot)
        assert status_strip(screen) == "Extraction  not run yet\nDream       not run yet"

        manager._set(manager.extraction, "running", "reading 2 new message(s)")
        await wait_until(pilot, lambda: "running" in status_strip(screen), what="running")
        assert status_strip(screen).splitlines()[0] == "Extraction  running — reading 2 new message(s)"
        assert app.status.memory == "memory: extracting…"
        assert "memory: extracting…" in rendered_text(app.status)

        manager._set(manager.extraction, "done", "saved 1 memory")
        manager._set(manager.dream, "skipped", "min_hours")
        await wait_until(pilot, lambda: "saved" in status_strip(screen), what="done")
        assert status_strip(screen) == (
            "Extraction  last run 2026-09-21 14:13 — saved 1 memory\n"
            "Dream       skipped — less than a day since the last consolidation · not run yet"
        )
        assert app.status.memory == ""

        manager._set(manager.dream, "failed", "the model endpoint answered 500")
        await wait_until(pilot, lambda: "failed" in status_strip(screen), what="failed")
        assert status_strip(screen).splitlines()[1] == "Dream       failed 2026-09-21 14:13 — the model endpoint answered 500"


async def test_a_real_extraction_shows_up_in_the_strip_and_the_list(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    settings = make_settings(fake_llm)
    settings.memory.extraction = True
    app = make_app(fake_llm, workspace, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        manager = app.runtime.memory
        target = manager.mem.project_root / "feedback" / "x.md"
        text = memory_text("answer briefly", "the user wants short answers", "feedback", "Keep answers short.")
        fake_llm.push(Reply.text("Sure."))
        fake_llm.push(Reply.tool_calls([("m1", "write_file", {"path": str(target), "content": text})]), Reply.text("Saved one."))
        seen: list[str] = []
        app.runtime.status.connect(lambda status: seen.append(manager.extraction.state) if status.source == "memory" else None)
        screen = await open_panel(pilot)
        app.turns.run("please keep your answers short from now on")
        await wait_until(pilot, lambda: manager.extraction.state == "done", what="extraction done")
        await wait_until(pilot, lambda: "saved 1 memory" in status_strip(screen), what="strip updated")
        assert seen[0] == "running" and seen[-1] == "done"
        assert "answer briefly  feedback/x.md · today\n  the user wants short answers" in options(screen)
        assert app.status.memory == ""
        await manager.drain(5)


async def test_the_panel_flags_a_link_to_a_missing_memory_and_leaves_the_index_alone(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    mem = seed(workspace)
    index = mem.index_file(MemoryScope.PROJECT)
    index.parent.mkdir(parents=True, exist_ok=True)
    written = "# Our notes\n- [no mocks](feedback/no-mocks.md): in our own words\n- [gone](project/gone.md) \u2014 deleted by hand\n"
    index.write_text(written, encoding="utf-8")
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await open_panel(pilot)
        strip = status_strip(screen)
        assert "! project MEMORY.md line 3 links to project/gone.md, which does not exist (dangling: the line is kept as written; edit or remove it)" in strip
        assert index.read_text(encoding="utf-8").startswith(written)  # kept, only missing memories appended
