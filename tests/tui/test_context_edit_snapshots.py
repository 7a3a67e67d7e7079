"""SVG snapshot of the context map with a dropped and a pinned part (plain ``def`` test; pinned like
test_context_snapshots.py: the session id, the prelude's facts, the environment)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from tests.fakes.openai_server import FakeOpenAIServer
from tests.tui.helpers import make_app, wait_until, write_instructions
from tests.tui.test_context_snapshots import TERMINAL, _one_turn, _quiet, _script, _settings, pinned  # noqa: F401  (autouse fixture)


async def _edit(pilot: Pilot, pool: str, key: str) -> None:  # type: ignore[type-arg]
    app = pilot.app
    context_map = app.context_map  # type: ignore[attr-defined]
    index = next(i for i, row in enumerate(context_map.rows) if row.part is None and row.block.name.startswith(pool))
    context_map.selected = index
    await pilot.press("right", key)
    await wait_until(pilot, lambda: any(p.edit for b in context_map.blocks for p in b.parts if b.name.startswith(pool)), what=f"{key} on {pool}")


def test_context_map_with_a_dropped_and_a_pinned_part(snap_compare, fake_llm: FakeOpenAIServer, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    write_instructions(workspace)
    _script(fake_llm)
    app = make_app(fake_llm, workspace, settings=_settings(fake_llm))

    async def run_before(pilot: Pilot) -> None:  # type: ignore[type-arg]
        await _one_turn(pilot)
        await pilot.press("f2")
        await _edit(pilot, "tool results", "d")
        await _edit(pilot, "user messages", "p")
        await _quiet(pilot)

    assert snap_compare(app, terminal_size=TERMINAL, run_before=run_before)
