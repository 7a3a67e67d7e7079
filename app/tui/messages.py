"""What the controllers tell the app about the status line, the budget gauge and the context map.

"Attributes down, messages up": the app owns those widgets and sets their attributes; a controller
posts one of these and the app's handler applies it. Messages reach the app in the order they
were posted (one queue), so a turn's "thinking…" never lands after its "idle".
"""

from __future__ import annotations

from app.dataclass import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from app.core.request import AssembledRequest
    from app.runtime import Runtime


class _Unset:
    """A status field the message leaves alone (None is a value: the turn timer stopped)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()


@dataclass
class StatusChanged(Message):
    """Fields of the status line to set; ``if_state`` sets ``state`` only while it still reads that."""

    state: str | _Unset = UNSET
    memory: str | _Unset = UNSET
    mode: str | _Unset = UNSET
    used_tokens: int | _Unset = UNSET
    context_window: int | _Unset = UNSET
    turn_started: float | None | _Unset = UNSET
    if_state: str | None = None

    def changes(self) -> dict[str, object]:
        names = ("state", "memory", "mode", "used_tokens", "context_window", "turn_started")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not UNSET}


@dataclass
class UsageChanged(Message):
    """The budget gauge's count (and window, when it changed)."""

    tokens: int
    window: int | None = None
    source: str = ""


@dataclass
class PendingChanged(Message):
    """What the prompt's @files would add to the next request, in tokens."""

    tokens: int


@dataclass
class ModelSwitched(Message):
    """Another model answers from now on: the status line and the gauge follow its window."""

    name: str
    window: int


@dataclass
class MapChanged(Message):
    """The context map: a request to show (with the server's count), or ``request=None`` to clear it."""

    request: AssembledRequest | None
    reported: int | None = None
    sent: bool = False  # the request a turn sends (not an estimate): the gauge says what it recalled


@dataclass
class MapStreaming(Message):
    """The reply being streamed, in tokens, drawn on the map as it grows (0 when it ended)."""

    tokens: int


@dataclass
class MapReported(Message):
    """The server's count of the last prompt, beside the map's own, and the prefix it had cached."""

    tokens: int | None
    cached: int = 0


@dataclass
class SessionOpened(Message):
    """A session was built and its conversation shown; the app finishes opening it."""

    runtime: Runtime
    resumed: bool


@dataclass
class GaugeFollowsMap(Message):
    """The gauge takes the map's estimate of the next request (after the view changed by hand, a rewind).

    A message, not a call: it lands after the ``MapChanged`` the re-estimate posted."""
