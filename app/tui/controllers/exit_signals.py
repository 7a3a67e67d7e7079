"""SIGTERM and SIGHUP to the TUI: the turn ends as Esc ends it, the draft is kept, the terminal is given back.

What ends the turn is the agent's cancel (the partial answer and ``turn_cancelled`` go to the record, a
shell command's group is stopped); the app then exits through Textual's own way out, whose driver leaves
the alternate screen, turns mouse tracking off and shows the cursor (``app/tui/terminal_guard.py`` keeps
that from waiting on a terminal that is gone). ``app/exit_signals.py`` says why and which exit codes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.exit_signals import ExitSignals, exit_code

if TYPE_CHECKING:
    from app.tui.host import TuiHost

# How long the cancelled turn may take to record its end (a shell command's group gets a few seconds).
TURN_END_SECONDS = 10.0
# If the app has not exited this long after the signal (a part that does not end), the process exits anyway.
LAST_LIMIT_SECONDS = 30.0
_POLL_SECONDS = 0.02


class ExitSignalController:
    def __init__(self, host: TuiHost, *, save_draft: Callable[[], None], exit_app: Callable[[int], None]) -> None:
        self.host = host
        self._save_draft = save_draft
        self._exit = exit_app
        self.signals = ExitSignals()

    @property
    def code(self) -> int | None:
        """143 / 129 once a signal ended the app; None otherwise."""
        return self.signals.code

    def install(self) -> None:
        self.signals.install(asyncio.get_running_loop(), self._stop)

    def _stop(self, signum: int) -> None:
        code = exit_code(signum)
        last = threading.Timer(LAST_LIMIT_SECONDS, os._exit, args=(code,))
        last.daemon = True
        last.start()
        with contextlib.suppress(Exception):  # the words being typed are kept as after ctrl+c ctrl+c
            self._save_draft()
        self.host.run_worker(self._end(code), name="_exit_on_signal", group="exit-signal", exit_on_error=False)

    async def _end(self, code: int) -> None:
        runtime = self.host.runtime
        agent = runtime.agent if runtime is not None else None
        if agent is not None and agent.cancel():
            deadline = time.monotonic() + TURN_END_SECONDS
            while agent.busy and time.monotonic() < deadline:
                await asyncio.sleep(_POLL_SECONDS)
        self._exit(code)
