"""Memory files for the TUI memory tests, and a look at the memory panel from Pilot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from app.context.memory import MemoryPaths, memory_paths
from app.paths import Paths
from app.tui.screens.memory import MemoryScreen
from tests.tui.helpers import rendered_text, wait_until
from tests.unit.memory_support import DAY, memory_text, put

T0 = 1_790_000_000.0  # the panel's pinned "now": 2026-09-21T14:13:20Z

NO_MOCKS = memory_text("no mocks in db tests", "integration tests must hit a real database, never mocks", "feedback", "Never mock the database.")
FREEZE = memory_text("release freeze", "code freeze before the March release", "project", "Freeze on 2026-03-01.")
TABS = memory_text("prefers tabs", "the user prefers tabs over spaces", "user", "Use tabs.")
# An unknown type in a file whose name has brackets, with markup in its name: listed with its problem, shown as written.
ODD = "---\nname: [$accent]odd[/]\ndescription: x\ntype: nonsense\n---\nbody\n"
NO_FRONTMATTER = "just some words\n"


def seed(workspace: Path) -> MemoryPaths:
    """Two project memories, one user memory and two broken files, with ages pinned against T0."""
    mem = memory_paths(Paths.for_cwd(workspace))
    put(mem.project_root, "feedback/no-mocks.md", NO_MOCKS, T0 - 47 * DAY)
    put(mem.project_root, "project/release-freeze.md", FREEZE, T0 - DAY)
    put(mem.project_root, "project/notes [draft].md", ODD, T0 - 3 * DAY)
    put(mem.project_root, "reference/broken.md", NO_FRONTMATTER, T0)
    put(mem.user_root, "user/tabs.md", TABS, T0 - 2 * DAY)
    return mem


async def open_panel(pilot: Pilot[Any]) -> MemoryScreen:
    """F5 with the panel's clock pinned to T0."""
    app = pilot.app
    app.runtime.memory.clock = lambda: T0  # type: ignore[attr-defined]
    await pilot.press("f5")
    await wait_until(pilot, lambda: isinstance(app.screen, MemoryScreen), what="memory panel")
    await pilot.pause()
    return app.screen  # type: ignore[return-value]


def options(screen: MemoryScreen) -> list[str]:
    option_list = screen.query_one(OptionList)
    return [str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count)]


def highlighted(screen: MemoryScreen) -> str:
    """The relative path of the highlighted memory."""
    entry = screen.selected()
    assert entry is not None, "no memory is highlighted"
    return entry.rel_path


def status_strip(screen: MemoryScreen) -> str:
    return rendered_text(screen.query_one("#memory-status"))


def select(screen: MemoryScreen, rel_path: str) -> None:
    option_list = screen.query_one(OptionList)
    for index in range(option_list.option_count):
        option = option_list.get_option_at_index(index)
        if option.id and option.id.endswith("/" + rel_path):
            option_list.highlighted = index
            return
    raise AssertionError(f"{rel_path} is not listed")
