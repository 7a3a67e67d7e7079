"""From the process's start to the first complete frame: what was typed meanwhile, and the frame kept.

Keys and pastes that arrive before the prompt has focus (typed while the app starts, or over a
replayed first frame) would reach no widget and be lost; they are held here and given to the
prompt, in order, once it has focus. (Before this, words typed in the first half second after
launching were dropped: ``tests/integration/test_first_frame.py``.)

The first complete frame (the footer's keys laid out and painted) is kept for the next start's
replay (``app/tui/frame_cache.py``); after a replay the driver held Textual's output back until
this moment (``app/tui/replay_driver.py``), and it is released here.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver

    from app.tui.frame_cache import FirstFrame

log = logging.getLogger(__name__)

# How many refreshes the footer may take to show its keys before the frame is taken as it is.
FIRST_FRAME_REFRESHES = 20


def driver_class_for(first_frame: FirstFrame | None) -> type[Driver] | None:
    """The driver that takes over a replayed frame, else Textual's own; on a Unix terminal either one is
    guarded against a terminal that went away (app/tui/terminal_guard.py). None on Windows: Textual's choice."""
    if sys.platform == "win32" or os.environ.get("TEXTUAL_DRIVER"):
        return None
    from app.tui.terminal_guard import guarded

    if first_frame is None or first_frame.replayed is None:
        from textual.drivers.linux_driver import LinuxDriver

        return guarded(LinuxDriver)
    from app.tui.replay_driver import driver_after

    return guarded(driver_after(first_frame.replayed))


class StartupKeeper:
    """Holds early input and keeps the first frame, for one app."""

    def __init__(self, app: App, first_frame: FirstFrame | None, prompt_text: Callable[[], str]) -> None:
        self.app = app
        self.first_frame = first_frame
        self.prompt_text = prompt_text
        self._early: list[events.Key | events.Paste] | None = []
        self._draft = ""

    def hold(self, event: events.Event) -> bool:
        """Whether ``event`` was kept for later (input before the prompt has focus)."""
        if self._early is not None and isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self._early.append(event)
            return True
        return False

    def mounted(self) -> None:
        """Called once the prompt has focus and holds the restored draft."""
        self.app.call_after_refresh(self._give_early_input)
        if self.first_frame is not None:
            self._draft = self.prompt_text()
            self.app.call_after_refresh(self._wait_for_complete_frame)

    def _give_early_input(self) -> None:
        early, self._early = self._early, None
        for event in early or ():
            self.app.post_message(events.Key(event.key, event.character) if isinstance(event, events.Key) else events.Paste(event.text))

    def _wait_for_complete_frame(self, refreshes: int = 0) -> None:
        """The footer's keys are mounted a refresh or two after the screen, and laid out a refresh after that."""
        footers = self.app.screen.query(Footer)
        keys = footers.first().children if footers else ()
        painted = bool(keys) and all(key.region.width for key in keys)
        if footers and not painted and refreshes < FIRST_FRAME_REFRESHES:
            self.app.call_after_refresh(self._wait_for_complete_frame, refreshes + 1)
            return
        self.app.call_after_refresh(self._keep_frame)

    def _keep_frame(self) -> None:
        app = self.app
        first_frame, self.first_frame = self.first_frame, None
        release = getattr(app._driver, "release_output", None)
        try:
            # A frame where the person already typed is not the first frame of the next start.
            if first_frame is None or app.is_headless or self.prompt_text() != self._draft:
                return
            from app.tui.frame_cache import save

            update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
            if update is None:
                return
            text = update.render_segments(app.console)
            app.screen.refresh()  # a full render clears what was waiting to be painted: paint it all again
            if first_frame.replayed is None or first_frame.replayed.frame != text:
                save(first_frame.path, first_frame.key, text)
        except Exception:  # noqa: BLE001 - only a head start for the next launch; never worth a crash
            log.warning("the first frame could not be kept for the next start", exc_info=True)
        finally:
            if callable(release):
                release()
