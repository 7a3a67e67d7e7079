"""Regenerate the README screenshots: drive the TUI against the demo model, save SVGs, convert to PNG.

    make screenshots      # needs rsvg-convert (Debian: apt-get install librsvg2-bin)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"


async def _idle(pilot, app) -> None:  # type: ignore[no-untyped-def]
    for _ in range(400):
        await pilot.pause(0.02)
        if app.runtime is not None and (app.runtime.agent is None or not app.runtime.agent.busy):
            return


async def shoot() -> list[Path]:
    os.environ["AGENTCTX_HOME"] = tempfile.mkdtemp(prefix="agentctx-shots-")
    workspace = Path(tempfile.mkdtemp(prefix="agentctx-shots-ws-"))
    (workspace / ".git").mkdir()
    (workspace / "README.md").write_text("# Demo project\n\nA tiny project for the screenshots.\n")
    (workspace / "QWEN.md").write_text("# Project rules\n\n- Four-space indents.\n- Run `make test` before committing.\n\nSee @docs/style.md\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "style.md").write_text("Prefer small functions with clear names.\n")
    _seed_memories(workspace)
    from app.config import load_settings
    from app.paths import Paths
    from app.tui.app import AgentctxApp
    from tests.fakes.serve import load_script, make_server

    script = load_script(ROOT / "tests" / "fakes" / "demo.yaml")
    server = make_server(script)
    server.start()
    saved: list[Path] = []
    try:
        paths = Paths.for_cwd(workspace)
        settings = load_settings(paths, {"model.base_url": server.base_url, "model.name": script.model}, env={"NO_PROXY": "127.0.0.1"})
        settings.demo = True
        settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
        settings.suggestions.enabled = False
        settings.sessions.auto_title = settings.sessions.recap_on_resume = False  # the script answers turns only
        app = AgentctxApp(settings=settings, paths=paths, warm_up=False)
        async with app.run_test(size=(120, 36)) as pilot:
            app.prompt.cursor_blink = False
            for prompt in ("show me some markdown", "read the readme"):
                app.prompt.load_text(prompt)
                await pilot.press("enter")
                await _idle(pilot, app)
            await pilot.pause(0.3)
            saved.append(Path(app.save_screenshot("conversation.svg", str(OUT))))
            app.prompt.load_text("write a file")
            await pilot.press("enter")
            for _ in range(200):
                await pilot.pause(0.02)
                if type(app.screen).__name__ == "ApprovalScreen":
                    break
            await pilot.pause(0.2)
            saved.append(Path(app.save_screenshot("approval.svg", str(OUT))))
            await pilot.press("y")
            await _idle(pilot, app)
            await pilot.press("f1")
            await pilot.pause(0.2)
            saved.append(Path(app.save_screenshot("help.svg", str(OUT))))
            for key, name in (("f4", "skills.svg"), ("f5", "memory.svg")):
                await pilot.press("escape")
                await pilot.press(key)
                await pilot.pause(0.4)
                saved.append(Path(app.save_screenshot(name, str(OUT))))
        wide = AgentctxApp(settings=settings, paths=paths, warm_up=False)
        async with wide.run_test(size=(160, 40)) as pilot:
            wide.prompt.cursor_blink = False
            for prompt in ("read the readme", "list the files"):
                wide.prompt.load_text(prompt)
                await pilot.press("enter")
                await _idle(pilot, wide)
            await pilot.pause(0.3)
            saved.append(Path(wide.save_screenshot("context-map.svg", str(OUT))))
        settings_none = load_settings(paths, env={})
        app = AgentctxApp(settings=settings_none, paths=paths, warm_up=False)
        async with app.run_test(size=(120, 36)) as pilot:
            app.prompt.cursor_blink = False
            await pilot.pause(0.3)
            saved.append(Path(app.save_screenshot("first-run.svg", str(OUT))))
    finally:
        server.stop()
    return saved


MEMORIES = {
    "feedback/no-mocks.md": ("no mocks in db tests", "integration tests hit a real database, never mocks", "feedback", "Never mock the database; a mocked test passed while the migration was broken."),
    "project/release-freeze.md": ("release freeze", "merge freeze from 2026-12-10 for the mobile release", "project", "Only fixes merge after 2026-12-10."),
    "reference/dashboards.md": ("latency dashboards", "where the API latency dashboards live", "reference", "grafana.internal/d/api-latency"),
}


def _seed_memories(workspace: Path) -> None:
    from app.context.memory import memory_paths
    from app.paths import Paths

    root = memory_paths(Paths.for_cwd(workspace)).project_root
    for rel, (name, description, kind, body) in MEMORIES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n{body}\n", encoding="utf-8")


def main() -> int:
    OUT.mkdir(exist_ok=True)
    svgs = asyncio.run(shoot())
    converter = shutil.which("rsvg-convert")
    for svg in svgs:
        if converter is None:
            print(f"{svg} (install librsvg2-bin for PNGs)")
            continue
        png = svg.with_suffix(".png")
        # rsvg drops a text run's leading space unless told to keep whitespace.
        svg.write_text(svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1), encoding="utf-8")
        subprocess.run([converter, "-w", "1400", str(svg), "-o", str(png)], check=True)
        svg.unlink()
        print(png.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
