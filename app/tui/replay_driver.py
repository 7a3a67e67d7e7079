"""Textual's terminal driver, taking over a screen that ``frame_cache.replay`` already drew.

Three things differ from a plain start:

- The driver enters the alternate screen again, and some terminals (xterm among them) clear it when
  asked while already in it: the replayed frame would blink out, so that one request is not sent.
- Textual paints in steps (the layout first, the footer's keys a refresh or two later): shown as
  they come, the replayed footer would vanish and come back. What the driver writes is held until
  the app says its first frame is complete (``release_output``), then written at once inside a
  synchronized update, so the replayed frame is followed by the same frame, live. A timer releases
  it anyway after ``HOLD_LIMIT_SECONDS``, and so does stopping.
- The driver saves the terminal's settings to restore at exit; the replay had already turned echo
  off, so the settings from before the replay are the ones restored (else the shell gets no echo).
"""

from __future__ import annotations

import threading

from textual.drivers.linux_driver import LinuxDriver

from app.tui.frame_cache import ReplayedFrame

ALT_SCREEN = "\x1b[?1049h"
SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"
HOLD_LIMIT_SECONDS = 3.0


def driver_after(replayed: ReplayedFrame) -> type[LinuxDriver]:
    """A driver class bound to this replay (Textual builds the driver from a class)."""

    class AfterReplayDriver(LinuxDriver):
        """The Linux driver, holding its output until the first frame is complete."""

        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            self._skip_alt_screen = True
            self._held: list[str] | None = []
            self._hold_lock = threading.Lock()
            self._hold_timer: threading.Timer | None = None

        def write(self, data: str) -> None:
            if self._skip_alt_screen and data == ALT_SCREEN:
                self._skip_alt_screen = False
                return
            with self._hold_lock:
                if self._held is not None:
                    self._held.append(data)
                    return
            super().write(data)

        def release_output(self) -> None:
            """Write what was held, as one synchronized update; from now on writes go straight out."""
            with self._hold_lock:
                held, self._held = self._held, None
            if self._hold_timer is not None:
                self._hold_timer.cancel()
            if held:
                super().write(SYNC_START + "".join(held) + SYNC_END)
                self.flush()

        def start_application_mode(self) -> None:
            super().start_application_mode()
            replayed.taken_over = True
            if replayed.original_attrs is not None:
                self.attrs_before = replayed.original_attrs
            self._hold_timer = threading.Timer(HOLD_LIMIT_SECONDS, self.release_output)
            self._hold_timer.daemon = True
            self._hold_timer.start()

        def stop_application_mode(self) -> None:
            self.release_output()
            super().stop_application_mode()

    return AfterReplayDriver
