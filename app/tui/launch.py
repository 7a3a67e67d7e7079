"""Opening the TUI from the command line: the settings for a demo, the kept first frame, then the app until it exits.

Textual is imported inside ``run_tui``, after the kept first frame is on screen (app/tui/frame_cache.py).
"""

from __future__ import annotations

import signal

from app import heap
from app.config import Settings, load_settings
from app.exit_signals import exit_code, exit_on_signals, let_go_of_dead_terminal
from app.paths import Paths
from app.tui.frame_cache import prepare


def run_tui(
    *,
    settings: Settings | None = None,
    paths: Paths | None = None,
    resume: str | None = None,
    continue_latest: bool = False,
    demo: bool = False,
) -> int:
    paths = paths or Paths.for_cwd()
    settings = settings or load_settings(paths)
    if demo:
        settings.demo = True
        # The scripted demo model cannot play the memory agents; recall still works (heuristically).
        settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
        settings.suggestions.enabled = False
        settings.sessions.auto_title = settings.sessions.recap_on_resume = False
    # Until the app's loop handles them, SIGTERM and SIGHUP raise SystemExit: the replayed frame is undone.
    with exit_on_signals():
        # Before Textual is imported: the frame this project drew last time at this size, when nothing it
        # depends on changed. Textual takes the screen over from it.
        first_frame = prepare(settings, paths, resume=resume, continue_latest=continue_latest)
        try:
            from app.context.memory.scan import watch_scopes
            from app.tui.app import AgentctxApp

            watch_scopes(True)  # an interactive session re-reads only the memory files that changed
            heap.loaded()  # the modules are in: freeze them and collect as usual from here on
            app = AgentctxApp(settings=settings, paths=paths, resume=resume, continue_latest=continue_latest, first_frame=first_frame)
            result = app.run()
            code = app.exit_signals.code
            if code == exit_code(signal.SIGHUP):
                let_go_of_dead_terminal()
            return code if code is not None else int(result or 0)
        finally:
            if first_frame is not None and first_frame.replayed is not None:
                first_frame.replayed.undo()  # only when Textual never took the screen over
