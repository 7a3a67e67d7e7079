"""Pick an earlier session of this project: newest first, with its first prompt and time."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.core.session.listing import SessionSummary
from app.tui.keys import PICKER_KEYS, bindings


def session_label(summary: SessionSummary, current: str | None) -> Content:
    when = summary.updated_at.strftime("%Y-%m-%d %H:%M") if summary.updated_at else "?"
    prompt = " ".join((summary.first_prompt or "(no prompt)").split())
    if len(prompt) > 70:
        prompt = prompt[:69] + "…"
    marker = "  [$accent](current)[/]" if summary.session_id == current else ""
    return Content.from_markup(f"[$text-muted]{when}[/]  {escape(prompt)}  [$text-muted]{summary.session_id[:8]}[/]{marker}")


class SessionPickerScreen(ModalScreen[str | None]):
    BINDINGS = bindings(PICKER_KEYS)

    def __init__(self, sessions: list[SessionSummary], *, current: str | None = None) -> None:
        super().__init__(classes="sessions")
        self.sessions = sessions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Static(Content.from_markup("[b]Sessions of this project[/b]  [$text-muted]enter opens · esc closes[/]"), id="sessions-title")
            if self.sessions:
                yield OptionList(*[Option(session_label(s, self.current), id=s.session_id) for s in self.sessions], id="sessions-list")
            else:
                yield Static("No sessions recorded for this project yet.", id="sessions-empty")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_open(self) -> None:
        options = self.query(OptionList)
        if not options:
            return
        option_list = options.first()
        if option_list.highlighted is None:
            return
        self.dismiss(option_list.get_option_at_index(option_list.highlighted).id)

    def action_close(self) -> None:
        self.dismiss(None)
