"""The question before a tool call runs: the approval dialog and the Future the agent awaits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.events import ApprovalNeeded, Decision
from app.tui.messages import StatusChanged
from app.tui.screens.approval import ApprovalScreen

if TYPE_CHECKING:
    from app.tui.host import TuiHost
    from app.tui.widgets.transcript import Entry


class ApprovalController:
    def __init__(self, host: TuiHost) -> None:
        self.host = host
        self._screen: ApprovalScreen | None = None

    def ask(self, event: ApprovalNeeded, entry: Entry | None) -> None:
        future = event.future
        if future is None:
            return
        self.host.post_message(StatusChanged(state="waiting for approval"))
        from app.context.skills.grants import GRANT_REFUSED

        note = event.reason.split(f"; {GRANT_REFUSED}: ", 1)[1] if f"; {GRANT_REFUSED}: " in event.reason else ""
        screen = ApprovalScreen(
            tool_name=event.call.name,
            summary=event.summary,
            detail=event.detail,
            tool_kind=event.tool_kind,
            grant_note=note,
            always=event.always,
        )
        self._screen = screen

        def answered(decision: Decision | None) -> None:
            self._screen = None
            if not future.done():
                future.set_result(decision or Decision.REJECT)
            self.host.post_message(StatusChanged(state="running tool…"))

        self.host.push_screen(screen, answered)

    def close(self) -> None:
        """The turn was cancelled: a question still open is answered no."""
        if self._screen is not None and self._screen.is_current:
            self._screen.dismiss(Decision.REJECT)
        self._screen = None
