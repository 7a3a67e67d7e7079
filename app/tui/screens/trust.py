"""The folder trust question: what this folder's project layer would change; y trusts, n (or esc) does not.

Asked once per folder on first open (when the folder brings a project layer), and by /trust.
The lines come from the repository, so they are shown inert.
"""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from app.tui.inert import inert
from app.tui.short_path import short_path

STATE_TEXT = {
    "trusted": "Trusted: what it brings applies",
    "declined": "Not trusted: what it brings is ignored",
    "unknown": "Not trusted yet: what it brings is ignored until you trust it",
}


def shown_folder(folder: Path) -> str:
    return short_path(folder)


class TrustScreen(ModalScreen[bool]):
    """Dismissed with True (trust) or False (do not trust)."""

    DEFAULT_CSS = """
    TrustScreen {
        align: center middle;
        background: $background 60%;
    }
    #trust-dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 85%;
        border: thick $warning;
        background: $surface;
        padding: 1 2;
    }
    #trust-title { dock: top; margin: 0 0 1 0; }
    #trust-state { color: $text-muted; margin: 0 0 1 0; }
    #trust-changes { height: auto; max-height: 100%; background: $panel; padding: 0 1; }
    #trust-keys { dock: bottom; margin: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("y,t", "answer(True)", "Trust", id="trust_yes"),
        Binding("n,escape", "answer(False)", "Don't trust", id="trust_no"),
    ]

    def __init__(self, folder: Path, changes: list[str], *, state: str = "unknown", inherited_from: Path | None = None) -> None:
        super().__init__(classes="trust")
        self.folder = folder
        self.changes = list(changes)
        self.state = state
        self.inherited_from = inherited_from

    def compose(self) -> ComposeResult:
        with Vertical(id="trust-dialog"):
            yield Static(Content.from_markup(f"[b]Do you trust the files in this folder?[/b]\n{escape(inert(shown_folder(self.folder)))}"), id="trust-title")
            state = STATE_TEXT.get(self.state, self.state)
            if self.inherited_from is not None and self.inherited_from != self.folder:
                state += f" (answered for {shown_folder(self.inherited_from)})"
            yield Static(Content(f"{state}. Trusting applies it and reopens the session (the conversation is kept). It would change:"), id="trust-state")
            with VerticalScroll(id="trust-changes"):
                body = "\n".join(f"• {inert(line)}" for line in self.changes) or "It brings no project settings, hooks or tool grants."
                yield Static(Content(body), id="trust-list")
            yield Static(
                Content.from_markup("[b]y[/b] trust this folder  ·  [b]n[/b] / [b]esc[/b] don't trust   [$text-muted](remembered; /trust changes it)[/]"),
                id="trust-keys",
            )

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
