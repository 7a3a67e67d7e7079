"""The approval mode and the model, changed from the keyboard: shift+tab, /approval-mode, /model.

A controller, not a mixin: it holds no widgets and reaches the app only through
``TuiHost`` (app/tui/host.py), so what it needs from the app is written down in one place;
the status line and the gauge hear of a change by message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.tools.permissions import ApprovalMode
from app.tui.messages import ModelSwitched, StatusChanged
from app.tui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from app.tui.host import TuiHost

# shift+tab walks this ring; yolo is last so one press from default never lands there.
MODE_ORDER = (ApprovalMode.DEFAULT, ApprovalMode.AUTO_EDIT, ApprovalMode.PLAN, ApprovalMode.YOLO)
MODE_HELP = {
    ApprovalMode.DEFAULT: "asks before file edits and commands",
    ApprovalMode.AUTO_EDIT: "file edits run without asking; commands still ask",
    ApprovalMode.PLAN: "read-only tools only; nothing is changed",
    ApprovalMode.YOLO: "every tool call runs without asking (deny rules still hold)",
}
YOLO_QUESTION = "Switch to yolo mode?"
YOLO_DETAIL = (
    "Every tool call runs without asking: shell commands, file writes and edits, in this session. "
    "Deny rules still hold. shift+tab or /approval-mode default goes back."
)


class ModeController:
    def __init__(self, host: TuiHost) -> None:
        self.host = host
        # An explicit model.context_window belongs to the model it was configured with.
        self._configured = (host.settings.model.name, host.settings.model.context_window)
        # Sessions in which the person already said yes to yolo (asked once per session).
        self._yolo_confirmed: set[str] = set()

    # -- approval mode ----------------------------------------------------------------------------

    def cycle(self) -> None:
        runtime = self.host.runtime
        if runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        index = MODE_ORDER.index(runtime.mode) if runtime.mode in MODE_ORDER else -1
        # A "no" to yolo on the ring moves on past it, so shift+tab always leads back to default.
        self.request(MODE_ORDER[(index + 1) % len(MODE_ORDER)], declined=MODE_ORDER[(index + 2) % len(MODE_ORDER)])

    def command(self, argument: str) -> None:
        """``/approval-mode``: without a mode, say which is in force and what the others do."""
        word = argument.strip().lower()
        runtime = self.host.runtime
        if not word:
            current = runtime.mode if runtime else ApprovalMode(self.host.settings.approval_mode)
            others = "; ".join(f"{mode.value}: {MODE_HELP[mode]}" for mode in MODE_ORDER)
            self.host.notify(f"Approval mode: {current.value} ({MODE_HELP[current]}). {others}. shift+tab cycles.", timeout=10)
            return
        try:
            mode = ApprovalMode(word)
        except ValueError:
            known = ", ".join(mode.value for mode in MODE_ORDER)
            self.host.notify(f"Unknown approval mode '{argument.strip()}'; use one of {known}.", severity="warning")
            return
        if runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        self.request(mode)

    def request(self, mode: ApprovalMode, *, declined: ApprovalMode | None = None) -> None:
        """Switch to ``mode``; yolo asks first. On "no" the mode stays, or becomes ``declined`` when given."""
        runtime = self.host.runtime
        assert runtime is not None
        if mode is ApprovalMode.YOLO and runtime.session_id not in self._yolo_confirmed:
            previous = runtime.mode

            def answered(yes: bool | None) -> None:
                if yes:
                    self._yolo_confirmed.add(runtime.session_id)
                    self._apply(mode)
                elif declined is not None and declined is not previous:
                    self._apply(declined, f"Not yolo: approval mode {declined.value}")
                else:
                    self.host.notify(f"Stayed in {previous.value} mode.")

            detail = YOLO_DETAIL if declined is None else f"{YOLO_DETAIL} Here n goes on to {declined.value}."
            self.host.push_screen(ConfirmScreen(YOLO_QUESTION, detail), answered)
            return
        self._apply(mode)

    def _apply(self, mode: ApprovalMode, lead: str = "Approval mode") -> None:
        runtime = self.host.runtime
        if runtime is None:
            return
        runtime.set_mode(mode)
        self.host.post_message(StatusChanged(mode=mode.value))
        self.host.notify(f"{lead}: {mode.value} ({MODE_HELP[mode]}).")

    # -- model ------------------------------------------------------------------------------------

    async def choose(self, argument: str) -> None:
        """``/model``: pick from the endpoint's list, or switch to the model named."""
        runtime = self.host.runtime
        if runtime is None or runtime.agent is None:
            self.host.notify("No model endpoint is configured yet (see the first-run screen).", severity="warning")
            return
        from app.core.llm.model_list import list_models

        model = self.host.settings.model
        listed = await list_models(model.base_url, model.api_key)
        name = argument.strip()
        if name:
            if listed.models and name not in listed.models:
                self.host.notify(
                    f"'{name}' is not among the models of {model.base_url}: {', '.join(listed.models[:12])}.",
                    severity="warning",
                    timeout=10,
                )
                return
            self.switch(name)
            return
        if listed.problem:
            self.host.notify(listed.problem, severity="error", timeout=10)
            return
        if not listed.models:
            self.host.notify(f"{model.base_url} lists no models; type /model NAME to switch by name.", severity="warning")
            return
        from app.tui.screens.model_picker import ModelPickerScreen

        def chosen(picked: str | None) -> None:
            if picked and picked != self.host.settings.model.name:
                self.switch(picked)

        self.host.push_screen(ModelPickerScreen(listed.models, current=model.name, endpoint=model.base_url), chosen)

    def switch(self, name: str) -> None:
        runtime = self.host.runtime
        if runtime is None:
            return
        if self.host.busy():
            self.host.notify("A turn is running; press Esc to cancel it before switching models.", severity="warning")
            return
        configured_name, configured_window = self._configured
        window = runtime.switch_model(name, configured_window if name == configured_name else None)
        self.host.post_message(ModelSwitched(name, window))
        from app.tui.widgets.status import format_tokens

        self.host.notify(f"Now talking to {name} (context window {format_tokens(window)}).")
