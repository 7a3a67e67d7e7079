"""Pick the message to rewind to: the person's earlier messages, newest first, filterable.

Enter goes back to just before the highlighted message (it returns to the prompt for
editing); ``/`` filters by words; Esc clears the filter, else closes.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from app.core.session.display import local_time
from app.core.session.records import parse_timestamp
from app.core.session.rewind import RewindPoint
from app.tui.keys import REWIND_KEYS, bindings

PREVIEW_WIDTH = 84
KEYS_HINT = "enter rewinds · / filters · esc closes"


def _fit(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if cell_len(flat) <= width else set_cell_size(flat, width - 1) + "…"


def point_row(point: RewindPoint, number: int) -> Content:
    """``#3  2026-12-01 23:40  the message's first words…`` (plain text, never markup)."""
    return Content.assemble(
        (f"#{number:<3} ", "$text-muted"),
        (local_time(parse_timestamp(point.timestamp)) if point.timestamp else "(time not recorded)", "$text-muted"),
        "  ",
        _fit(point.text, PREVIEW_WIDTH) or ("(empty message)", "$text-muted"),
    )


class RewindScreen(ModalScreen[RewindPoint | None]):
    CSS_PATH = "rewind.tcss"
    BINDINGS = bindings(REWIND_KEYS)

    def __init__(self, points: list[RewindPoint]) -> None:
        super().__init__(classes="rewind")
        self.points = list(points)  # newest first
        self._rows: list[RewindPoint] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog"):
            yield Static(Content.assemble(("Rewind to before…", "bold"), (f"  {KEYS_HINT}", "$text-muted")), id="rewind-title")
            yield Input(placeholder="/ filter the messages", id="rewind-filter")
            yield OptionList(id="rewind-list")
            yield Static(
                Content("The conversation goes back to just before the message you choose, and the message returns to the prompt. "
                        "Nothing is deleted from the record; file changes are offered for undo next."),
                id="rewind-status",
            )

    def on_mount(self) -> None:
        self._fill("")
        self.option_list.focus()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#rewind-list", OptionList)

    @property
    def filter_box(self) -> Input:
        return self.query_one("#rewind-filter", Input)

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        numbers = {id(p): len(self.points) - i for i, p in enumerate(self.points)}
        self._rows = [p for p in self.points if all(w in p.text.lower() for w in words)]
        option_list = self.option_list
        option_list.clear_options()
        if not self._rows:
            empty = f"No earlier message mentions “{query}”." if words else "No earlier message to rewind to."
            option_list.add_option(Option(Content(empty), disabled=True))
            return
        option_list.add_options(Option(point_row(p, numbers[id(p)])) for p in self._rows)
        option_list.highlighted = 0

    def highlighted(self) -> RewindPoint | None:
        index = self.option_list.highlighted
        return self._rows[index] if index is not None and index < len(self._rows) else None

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_choose()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose()

    def action_choose(self) -> None:
        point = self.highlighted()
        if point is not None:
            self.dismiss(point)

    def action_filter(self) -> None:
        self.filter_box.focus()

    def action_move(self, step: int) -> None:
        if self._rows:
            index = self.option_list.highlighted
            self.option_list.highlighted = 0 if index is None else max(0, min(len(self._rows) - 1, index + step))

    def action_escape(self) -> None:
        box = self.filter_box
        if box.value:
            box.value = ""
            self.option_list.focus()
        elif box.has_focus:
            self.option_list.focus()
        else:
            self.dismiss(None)
