"""Pick the model to talk to from those the endpoint lists (``/model``).

The list comes from ``GET <base_url>/models``; the current model is marked. Enter
switches, Esc keeps the current one.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

KEYS_HINT = "enter switches · esc keeps the current model"


class ModelPickerScreen(ModalScreen[str | None]):
    CSS_PATH = "model_picker.tcss"
    BINDINGS = [Binding("escape", "dismiss_picker", "Close", id="model_picker_close")]

    def __init__(self, models: list[str], *, current: str, endpoint: str) -> None:
        super().__init__(classes="model-picker")
        self.models = list(models)
        self.current = current
        self.endpoint = endpoint

    def compose(self) -> ComposeResult:
        with Vertical(id="model-dialog"):
            yield Static(Content.assemble(("Models of ", "bold"), (self.endpoint, "bold"), (f"  {KEYS_HINT}", "$text-muted")), id="model-title")
            yield OptionList(
                *(Option(Content.assemble(("● " if name == self.current else "  ", "$accent"), name), id=name) for name in self.models),
                id="model-list",
            )

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        if self.current in self.models:
            option_list.highlighted = self.models.index(self.current)
        option_list.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_picker(self) -> None:
        self.dismiss(None)
