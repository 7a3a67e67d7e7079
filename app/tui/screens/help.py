"""Every key and every command, generated from the key table so it never drifts."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from app.tui.commands import COMMANDS
from app.tui.keys import ALL_KEYS, effective_key


def help_text(keymap: dict[str, str]) -> str:
    lines: list[str] = []
    for where, specs in groupby(ALL_KEYS, key=lambda s: s.where):
        lines.append(f"[b $accent]{escape(where)}[/]")
        for spec in specs:
            key = effective_key(spec, keymap) or "(no key)"
            lines.append(f"  [b]{escape(key):<14}[/b] {escape(spec.description)}")
        lines.append("")
    lines.append("[b $accent]Commands (type in the prompt)[/]")
    for command in COMMANDS:
        names = " ".join(f"/{n}" for n in (command.name, *command.aliases))
        lines.append(f"  [b]{escape(names):<22}[/b] {escape(command.description)}")
    lines.append("")
    lines.append("[$text-muted]ctrl+p opens the command palette · keys can be remapped with 'keymap:' in settings.yaml[/]")
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = [Binding("escape,f1,q", "close", "Close", id="help_close")]

    def __init__(self, keymap: dict[str, str]) -> None:
        super().__init__(classes="help")
        self.keymap = keymap

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(Content.from_markup("[b]Keys and commands[/b]  [$text-muted](esc closes)[/]"), id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(Content.from_markup(help_text(self.keymap)))

    def action_close(self) -> None:
        self.dismiss(None)
