"""The skills panel: every skill by level with its status; Enter reads SKILL.md, space enables or disables."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.context.skills import SkillEntry, SkillManager, SkillStatus
from app.context.skills.listing_text import LEVEL_TITLES, MARKS

COLOURS = {
    SkillStatus.AVAILABLE: "$success",
    SkillStatus.WAITING: "$warning",
    SkillStatus.USER_ONLY: "$accent",
    SkillStatus.DISABLED: "$text-muted",
    SkillStatus.SHADOWED: "$text-muted",
    SkillStatus.ERROR: "$error",
}


def entry_line(entry: SkillEntry, activated_by: str | None) -> Content:
    mark, label = MARKS.get(entry.status, ("?", str(entry.status)))
    colour = COLOURS.get(entry.status, "$text-muted")
    description = entry.skill.description if entry.skill else ""
    line = f"[{colour}]{mark}[/] [b]{escape(entry.name)}[/b]  [$text-muted]{escape(label)}[/]"
    if activated_by:
        line += f" [$success](activated by {escape(activated_by)})[/]"
    if description:
        line += f"\n    {escape(description[:110])}"
    if entry.message:
        line += f"\n    [{colour}]{escape(entry.message[:200])}[/]"
    return Content.from_markup(line)


class SkillsScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="skills_close"),
        Binding("enter", "open", "Read SKILL.md", id="skills_open", show=False),
        Binding("space", "toggle", "Enable / disable", id="skills_toggle"),
    ]

    @dataclass
    class Toggled(Message):
        name: str
        disabled: bool

    def __init__(self, manager: SkillManager) -> None:
        super().__init__(classes="skills")
        self.manager = manager
        self._unsubscribe = None

    def compose(self) -> ComposeResult:
        with Vertical(id="skills-dialog"):
            yield Static(Content.from_markup("[b]Skills[/b]  [$text-muted]enter reads · space enables/disables · esc closes[/]"), id="skills-title")
            yield OptionList(id="skills-list")

    def on_mount(self) -> None:
        self._fill()
        self._unsubscribe = self.manager.subscribe(lambda: self.app.call_later(self._fill))
        self.query_one(OptionList).focus()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _fill(self) -> None:
        option_list = self.query_one(OptionList)
        highlighted = option_list.highlighted
        option_list.clear_options()
        for level, entries in groupby(self.manager.skills, key=lambda e: e.level.value if e.level else None):
            option_list.add_option(Option(Content.from_markup(f"[b $accent]{LEVEL_TITLES.get(level, level)}[/]"), disabled=True))
            for entry in entries:
                option_list.add_option(Option(entry_line(entry, self.manager.activated_by.get(entry.name)), id=f"{entry.path}"))
        if highlighted is not None and option_list.option_count:
            option_list.highlighted = min(highlighted, option_list.option_count - 1)
        elif option_list.option_count > 1:
            option_list.highlighted = 1

    def _selected(self) -> SkillEntry | None:
        option_list = self.query_one(OptionList)
        if option_list.highlighted is None:
            return None
        option_id = option_list.get_option_at_index(option_list.highlighted).id
        return next((e for e in self.manager.skills if str(e.path) == option_id), None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        from app.tui.screens.text_view import TextScreen

        entry = self._selected()
        if entry is None:
            return
        path = entry.path if entry.path.name == "SKILL.md" or entry.path.is_file() else entry.path / "SKILL.md"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            text = f"Cannot read {path}: {exc.strerror or exc}"
        self.app.push_screen(TextScreen(entry.name, text, subtitle=str(path)))

    def action_toggle(self) -> None:
        entry = self._selected()
        if entry is None or entry.skill is None:
            return
        disabled = entry.status is not SkillStatus.DISABLED
        self.manager.set_disabled(entry.name, disabled)
        self.post_message(self.Toggled(entry.name, disabled))
        self._fill()

    def action_close(self) -> None:
        self.dismiss(None)
