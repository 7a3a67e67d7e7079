"""Approve or reject a write or shell command: y / n / a (always, this session) / esc."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from app.core.events import Decision
from app.inert import inert
from app.tui.keys import APPROVAL_KEYS, bindings


class ApprovalScreen(ModalScreen[Decision]):
    BINDINGS = bindings(APPROVAL_KEYS)

    def __init__(self, *, tool_name: str, summary: str, detail: str, tool_kind: str) -> None:
        super().__init__(classes="approval")
        self.tool_name = tool_name
        self.summary = summary
        self.detail = detail
        self.tool_kind = tool_kind

    def compose(self) -> ComposeResult:
        verb = "run a command" if self.tool_kind == "execute" else "change files"
        with Vertical(id="approval-dialog"):
            with Vertical(id="approval-head"):
                yield Static(Content.from_markup(f"The agent wants to {verb}: [b]{escape(self.tool_name)}[/b]"), id="approval-title")
                yield Static(Content(inert(self.summary)), id="approval-summary")
            with VerticalScroll(id="approval-detail"):
                yield Static(_diff_content(inert(self.detail)))
            yield Static(
                Content.from_markup(
                    "[b]y[/b] yes  ·  [b]n[/b] no  ·  [b]a[/b] always (for this session)  ·  [b]esc[/b] reject"
                ),
                id="approval-keys",
            )

    def action_approve(self) -> None:
        self.dismiss(Decision.APPROVE)

    def action_reject(self) -> None:
        self.dismiss(Decision.REJECT)

    def action_always(self) -> None:
        self.dismiss(Decision.ALWAYS)


def _diff_content(detail: str) -> Content:
    """Colour a unified diff; any other text is shown as it is."""
    lines = detail.splitlines()
    if not any(line.startswith(("+++", "---", "@@")) for line in lines[:4]):
        return Content(detail)
    styled = Content("")
    for index, line in enumerate(lines):
        piece = Content(line)
        if line.startswith("+") and not line.startswith("+++"):
            piece = piece.stylize("$text-success")
        elif line.startswith("-") and not line.startswith("---"):
            piece = piece.stylize("$text-error")
        elif line.startswith("@@"):
            piece = piece.stylize("$text-accent")
        styled += piece
        if index < len(lines) - 1:
            styled += Content("\n")
    return styled
