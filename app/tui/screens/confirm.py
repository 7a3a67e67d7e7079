"""A yes/no question: y / n / esc."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class ConfirmScreen(ModalScreen[bool]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm_yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm_no"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__(classes="confirm")
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(Content(self.question), id="confirm-question")
            if self.detail:
                yield Static(Content(self.detail), id="confirm-detail")
            yield Static(Content.from_markup("[b]y[/b] yes  ·  [b]n[/b] / [b]esc[/b] no"), id="confirm-keys")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
