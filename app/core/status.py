"""One sink for background status: what memory, skills and skill drafts publish outside a turn.

The producers take a ``StatusSink`` when they are built (the composition root passes one
``StatusRelay`` to all of them); the TUI connects the relay to its message queue, where
each ``BackgroundStatus`` becomes a Textual message. Headless runs connect nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.core.events import BackgroundStatus

log = logging.getLogger(__name__)

StatusSink = Callable[[BackgroundStatus], None]


def no_status(status: BackgroundStatus) -> None:
    """The sink of a producer nobody watches."""


class StatusRelay:
    """Hands every status to each receiver connected now, in the order they connected (none: dropped)."""

    def __init__(self) -> None:
        self._receivers: list[StatusSink] = []

    def connect(self, receiver: StatusSink) -> Callable[[], None]:
        """From now on ``receiver`` gets each status; returns the function that disconnects it."""
        self._receivers.append(receiver)
        return lambda: self._receivers.remove(receiver) if receiver in self._receivers else None

    def __call__(self, status: BackgroundStatus) -> None:
        for receiver in list(self._receivers):
            try:
                receiver(status)
            except Exception:  # a broken viewer must not stop background work, nor the other viewers
                log.exception("background status receiver failed")
