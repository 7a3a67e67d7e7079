"""A read-only text in a scrollable modal: reports, the injected instruction text, a block of the context map."""

from __future__ import annotations

import re
from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class TextScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="text_close"),
        Binding("c", "copy", "Copy", id="text_copy"),
    ]

    def __init__(self, title: str, text: str, *, subtitle: str = "", highlight: str | None = None) -> None:
        super().__init__(classes="text-view")
        self.title_text = title
        self.body = text
        self.subtitle = subtitle
        # Lines matching this regex are shown in the warning colour (a cut instruction file in /context).
        self.highlight = highlight

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog"):
            head = f"[b]{escape(self.title_text)}[/b]"
            if self.subtitle:
                head += f"  [$text-muted]{escape(self.subtitle)}[/]"
            head += "  [$text-muted](c copies · esc closes)[/]"
            yield Static(Content.from_markup(head), id="text-title")
            with VerticalScroll(id="text-body"):
                yield Static(self._content(), id="text-content")

    def _content(self) -> Content:
        if not self.highlight or not self.body:
            return Content(self.body or "(empty)")
        pattern = re.compile(self.highlight)
        lines = [f"[$warning]{escape(line)}[/]" if pattern.search(line) else escape(line) for line in self.body.split("\n")]
        return Content.from_markup("\n".join(lines))

    def on_mount(self) -> None:
        self.query_one("#text-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.body)
        self.app.notify(f"Copied {len(self.body):,} characters.")
