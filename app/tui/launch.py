"""Opening the TUI from the command line: the settings for a demo, then the app until it exits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.config import Settings, load_settings
from app.paths import Paths
from app.tui.app import AgentctxApp

if TYPE_CHECKING:
    from app.tui.frame_cache import FirstFrame


def run_tui(
    *,
    settings: Settings | None = None,
    paths: Paths | None = None,
    resume: str | None = None,
    continue_latest: bool = False,
    demo: bool = False,
    first_frame: FirstFrame | None = None,
) -> int:
    paths = paths or Paths.for_cwd()
    settings = settings or load_settings(paths)
    if demo:
        settings.demo = True
        # The scripted demo model cannot play the memory agents; recall still works (heuristically).
        settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
        settings.suggestions.enabled = False
        settings.sessions.auto_title = settings.sessions.recap_on_resume = False
    from app.context.memory.scan import watch_scopes

    watch_scopes(True)  # an interactive session re-reads only the memory files that changed
    app = AgentctxApp(settings=settings, paths=paths, resume=resume, continue_latest=continue_latest, first_frame=first_frame)
    result = app.run()
    return int(result or 0)
