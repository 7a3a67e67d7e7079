"""Approve or reject a write or shell command: y / n / a (always, this session) / esc."""

from __future__ import annotations

from pathlib import Path

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
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = bindings(APPROVAL_KEYS)

    def __init__(
        self, *, tool_name: str, summary: str, detail: str, tool_kind: str, grant_note: str = "", always: list[str] | None = None
    ) -> None:
        super().__init__(classes="approval")
        # A skill's allowedTools matched this call but could not cover it (and why): the person should know.
        self.grant_note = grant_note
        self.tool_name = tool_name
        self.summary = summary
        self.detail = detail
        self.tool_kind = tool_kind
        self.always = list(always or [])

    def compose(self) -> ComposeResult:
        verb = {"execute": "run a command", "external": "call an MCP server's tool"}.get(self.tool_kind, "change files")
        with Vertical(id="approval-dialog"):
            with Vertical(id="approval-head"):
                yield Static(Content.from_markup(f"The agent wants to {verb}: [b]{escape(self.tool_name)}[/b]"), id="approval-title")
                yield Static(Content(inert(self.summary)), id="approval-summary")
                if self.grant_note:
                    yield Static(Content(inert(f"A skill's allowedTools grant was refused: {self.grant_note}")), id="approval-grant")
            if self.detail.strip() and self.detail.strip() != self.summary.strip():  # a short command is said once
                with VerticalScroll(id="approval-detail"):
                    yield Static(_diff_content(inert(self.detail)))
            keys = Content.from_markup("[b]y[/b] yes  ·  [b]n[/b] no  ·  [b]a[/b] always (for this session)  ·  [b]esc[/b] reject")
            covered = always_covers(self.always)
            if covered:
                keys += Content("\n") + Content(f"a allows for this session: {covered}").stylize("$text-warning")
            yield Static(keys, id="approval-keys")

    def action_approve(self) -> None:
        self.dismiss(Decision.APPROVE)

    def action_reject(self) -> None:
        self.dismiss(Decision.REJECT)

    def action_always(self) -> None:
        self.dismiss(Decision.ALWAYS)


def always_covers(rules: list[str]) -> str:
    """What "always" would allow, in words: ``git *`` is every git command (push and reset too)."""
    wide = {rule[:-3] + ")" for rule in rules if rule.endswith(" *)")}  # T(git *) covers T(git)
    shown: list[str] = []
    for rule in rules:
        if rule in wide:
            continue
        if rule.endswith(" *)"):
            program = rule[rule.index("(") + 1 : -3]
            shown.append(f"{rule} — every {program} command, whatever its arguments")
        elif "(" not in rule:
            shown.append(f"{rule} — every call of this tool")
        else:
            shown.append(rule)
    return "; ".join(shown)


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
