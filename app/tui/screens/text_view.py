"""A read-only text in a scrollable modal: reports, the injected instruction text, a block of the context map."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class TextScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="text_close"),
        Binding("c", "copy", "Copy", id="text_copy"),
    ]

    def __init__(self, title: str, text: str, *, subtitle: str = "") -> None:
        super().__init__(classes="text-view")
        self.title_text = title
        self.body = text
        self.subtitle = subtitle

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog"):
            head = f"[b]{escape(self.title_text)}[/b]"
            if self.subtitle:
                head += f"  [$text-muted]{escape(self.subtitle)}[/]"
            head += "  [$text-muted](c copies · esc closes)[/]"
            yield Static(Content.from_markup(head), id="text-title")
            with VerticalScroll(id="text-body"):
                yield Static(Content(self.body or "(empty)"), id="text-content")

    def on_mount(self) -> None:
        self.query_one("#text-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.body)
        self.app.notify(f"Copied {len(self.body):,} characters.")
