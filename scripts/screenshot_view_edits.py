"""The README's screenshot of hand edits on the context map: the TUI against the demo model, a file read
and a directory listed, the README's read dropped and the listing pinned, saved as screenshots/context-edits.png.

    python -m scripts.screenshot_view_edits      # needs rsvg-convert (Debian: librsvg2-bin)

Kept apart from scripts/screenshots.py so the two can change without touching each other.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from scripts.screenshots import OUT, ROOT, _idle

NAME = "context-edits"


async def _edit(pilot, app, pool: str, key: str) -> None:  # type: ignore[no-untyped-def]
    context_map = app.context_map
    context_map.selected = next(i for i, row in enumerate(context_map.rows) if row.part is None and row.block.name.startswith(pool))
    await pilot.press("right", key)
    await pilot.pause(0.2)


async def shoot() -> Path:
    os.environ["AGENTCTX_HOME"] = tempfile.mkdtemp(prefix="agentctx-shots-")
    workspace = Path(tempfile.mkdtemp(prefix="agentctx-shots-ws-"))
    (workspace / ".git").mkdir()
    (workspace / "README.md").write_text("# Demo project\n\nA tiny project for the screenshots.\n")
    (workspace / "QWEN.md").write_text("# Project rules\n\n- Four-space indents.\n- Run `make test` before committing.\n")
    from app.config import load_settings
    from app.paths import Paths
    from app.tui.app import AgentctxApp
    from tests.fakes.serve import load_script, make_server

    script = load_script(ROOT / "tests" / "fakes" / "demo.yaml")
    server = make_server(script)
    server.start()
    try:
        paths = Paths.for_cwd(workspace)
        settings = load_settings(paths, {"model.base_url": server.base_url, "model.name": script.model}, env={"NO_PROXY": "127.0.0.1"})
        settings.demo = True
        settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
        settings.suggestions.enabled = False
        settings.sessions.auto_title = settings.sessions.recap_on_resume = False
        app = AgentctxApp(settings=settings, paths=paths, warm_up=False)
        async with app.run_test(size=(160, 40)) as pilot:
            app.prompt.cursor_blink = False
            for _ in range(500):  # the session opens in a worker
                await pilot.pause(0.02)
                if app.runtime is not None and app.status.state == "idle":
                    break
            for prompt in ("read the readme", "list the files"):
                app.prompt.load_text(prompt)
                await pilot.press("enter")
                await _idle(pilot, app)
            await pilot.pause(0.3)
            await pilot.press("f2")
            await _edit(pilot, app, "tool results", "d")  # the first result: the README read
            await pilot.press("down", "p")  # the next: the directory listing
            await pilot.pause(0.3)
            app.clear_notifications()
            await pilot.pause(0.2)
            return Path(app.save_screenshot(f"{NAME}.svg", str(OUT)))
    finally:
        server.stop()


def main() -> int:
    OUT.mkdir(exist_ok=True)
    svg = asyncio.run(shoot())
    converter = shutil.which("rsvg-convert")
    if converter is None:
        print(f"{svg} (install librsvg2-bin for a PNG)")
        return 0
    svg.write_text(svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1), encoding="utf-8")
    png = svg.with_suffix(".png")
    subprocess.run([converter, "-w", "1400", str(svg), "-o", str(png)], check=True)
    svg.unlink()
    print(png.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
