"""What a controller may ask of the app: the one place that says what they share.

The app (``app/tui/app.py``) satisfies this Protocol; the controllers under ``controllers/``
are plain classes that take it. They read the runtime and the settings, write to the
conversation and the prompt (the two surfaces they await or read back), open screens, run
workers, and post the messages of ``app/tui/messages.py`` for the status line, the gauge,
and the context map, which belong to the app alone ("attributes down, messages up").
Nothing here imports a controller, so no controller module imports the app or another one
through this file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.content import Content
    from textual.message import Message
    from textual.screen import Screen
    from textual.timer import Timer
    from textual.worker import Worker

    from app.config import Settings
    from app.paths import Paths
    from app.runtime import Runtime
    from app.tui.widgets.conversation import Conversation
    from app.tui.widgets.prompt import PromptInput


class TuiHost(Protocol):
    runtime: Runtime | None
    settings: Settings
    paths: Paths

    @property
    def conversation(self) -> Conversation: ...

    @property
    def prompt(self) -> PromptInput: ...

    @property
    def screen(self) -> Screen[Any]: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None: ...

    def push_screen(self, screen: Any, callback: Callable[[Any], Any] | None = None) -> Any: ...

    def push_screen_wait(self, screen: Any) -> Awaitable[Any]: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def set_interval(self, interval: float, callback: Callable[[], Any] | None = None) -> Timer: ...

    def show_hint(self, content: Content | None) -> None:
        """The line above the prompt (None hides it). A call, not a message: it must not land after
        the prompt's own command hint that the next key already queued."""
        ...

    def suspend(self) -> AbstractContextManager[None]:
        """Hand the terminal to a child program (an editor) and take it back."""
        ...

    def busy(self) -> bool:
        """Whether a turn is running."""
        ...
