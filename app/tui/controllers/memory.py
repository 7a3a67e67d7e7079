"""The memory panel (F5, /memory), /remember, /forget and /dream, and the status line's
word on background memory work (by message)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from string import Template
from typing import TYPE_CHECKING

from app.tui.guards import STARTING_UP, idle_model
from app.tui.messages import StatusChanged
from app.tui.screens.confirm import ConfirmScreen
from app.tui.short_path import short_path

# The memory package loads with the runtime, in the worker thread after the first frame;
# everything from it is imported where it is used, never at start-up.
if TYPE_CHECKING:
    from app.context.memory import ForgetSelection
    from app.context.memory.manager import MemoryManager
    from app.tui.host import TuiHost

REMEMBER_USAGE = "Usage: /remember <what to remember>"
FORGET_USAGE = "Usage: /forget <memory text to remove>"


class MemoryController:
    def __init__(self, host: TuiHost, *, run_turn: Callable[[str, str | None], None]) -> None:
        self.host = host
        self._run_turn = run_turn  # /remember is a turn

    # -- the panel -----------------------------------------------------------------------------------

    def panel(self) -> None:
        """F5 and /memory: open the panel (its own F5 closes it)."""
        from app.tui.screens.memory import MemoryScreen

        if self.host.runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        self.host.push_screen(MemoryScreen(self.host.runtime.memory))

    # -- the status line -----------------------------------------------------------------------------

    def watch(self, manager: MemoryManager) -> None:
        """Show a (new) session's memory tasks in the status line (BackgroundStatusChanged keeps it current)."""
        self._show_memory_activity(manager)

    def _show_memory_activity(self, manager: MemoryManager) -> None:
        from app.context.memory.tasks import memory_activity

        runtime = self.host.runtime
        if runtime is not None and runtime.memory is manager:
            self.host.post_message(StatusChanged(memory=memory_activity(manager.extraction, manager.dream)))

    # -- /remember -----------------------------------------------------------------------------------

    def remember(self, text: str = "") -> None:
        if not text.strip():
            self.host.notify(REMEMBER_USAGE, severity="warning")
            return
        if idle_model(self.host, "/remember") is None:
            return
        from app.context.prompt.base import template

        prompt = Template(template("remember")).safe_substitute(text=text.strip())
        # The conversation shows what was typed; the model gets the instructions around it.
        self._run_turn(prompt, f"/remember {text.strip()}")

    # -- /forget ---------------------------------------------------------------------------------------

    def forget(self, text: str = "") -> None:
        if not text.strip():
            self.host.notify(FORGET_USAGE, severity="warning")
            return
        if self.host.runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        work = partial(self._forget_flow, self.host.runtime.memory, text.strip())
        self.host.run_worker(work, name="_forget_flow", group="memory-forget", exclusive=True, exit_on_error=False)

    async def _forget_flow(self, manager: MemoryManager, query: str) -> None:
        """Choose (the model, else text matching), show exactly what goes, delete only on y."""
        if manager.provider is not None:
            self.host.notify("Choosing the memories to forget…")
        selection = await manager.select_forget(query)
        if not selection.candidates:
            self.host.notify(f"No managed auto-memory entries matched: {query}", severity="warning")
            return
        question, detail = forget_question(query, selection)
        if not await self.host.push_screen_wait(ConfirmScreen(question, detail)):
            self.host.notify("Nothing was forgotten.")
            return
        from app.context.memory import (
            MemoryStoreError,
            SecretsInTeamMemoryError,
            TeamMemoryRootSecurityError,
        )

        try:
            result = manager.forget(selection.candidates)
        except (MemoryStoreError, SecretsInTeamMemoryError, TeamMemoryRootSecurityError, OSError) as error:  # a file that leads outside memory
            self.host.notify(f"Could not forget: {error}", severity="error", timeout=8)
            return
        for problem in result.problems:
            self.host.notify(problem, severity="warning")
        if result.removed:
            self.host.notify(result.message)

    # -- /dream ----------------------------------------------------------------------------------------

    def dream(self) -> None:
        if self.host.runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        manager = self.host.runtime.memory
        if manager.dream_now():
            self.host.notify("Consolidating the project memories in the background (F5 shows how it goes).")
        else:
            self.host.notify(f"Not consolidating: {manager.dream.detail}.", severity="warning")


def forget_question(query: str, selection: ForgetSelection) -> tuple[str, str]:
    """The confirmation's question and the exact files it acts on."""
    from app.context.memory.forget import describe_item, forget_preview

    items = forget_preview(selection.candidates)
    noun = "file" if len(items) == 1 else "files"
    question = f"Forget what matches “{query}”? This changes {len(items)} memory {noun}:"
    lines = [describe_item(item, short_path(item.path)) for item in items]
    how = "Chosen by the model" if selection.strategy == "model" else "Chosen by matching the text"
    if selection.fallback_reason:
        how += f" (the model could not choose: {selection.fallback_reason})"
    return question, "\n".join(lines) + f"\n\n{how}; the memory indexes are rebuilt."
