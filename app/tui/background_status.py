"""Background status as a Textual message: the runtime's status relay posts it, the app and open panels handle it.

Memory, skills and skill drafts publish ``app.core.events.BackgroundStatus`` through one
sink (``Runtime.status``); here each becomes a message on the app's queue ("attributes
down, messages up"), so the producers never touch a widget and any thread may publish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App

    from app.core.events import BackgroundStatus
    from app.runtime import Runtime


# bubble=False: the app forwards it down to the open screens; it must not come back up (Textual
# sets ``bubble`` from the class keyword, so a class attribute would be overwritten).
class BackgroundStatusChanged(Message, bubble=False):
    """``status`` came from ``runtime``'s background work (an older session's is ignored)."""

    def __init__(self, status: BackgroundStatus, runtime: Runtime) -> None:
        super().__init__()
        self.status = status
        self.runtime = runtime


def follow(app: App, runtime: Runtime) -> None:
    """From now on ``runtime``'s background status reaches ``app`` as messages."""
    runtime.status.connect(lambda status: app.post_message(BackgroundStatusChanged(status, runtime)))


def forward_to_screens(app: App, message: BackgroundStatusChanged) -> None:
    """Open panels (memory, skills) refresh on the status they show."""
    for screen in app.screen_stack[1:]:
        screen.post_message(BackgroundStatusChanged(message.status, message.runtime))
