"""The memory panel (F5, /memory), /remember, /forget and /dream, and the status line's
word on background memory work. A mixin of the App."""

from __future__ import annotations

from string import Template
from typing import TYPE_CHECKING

from textual import work

from app.tui.guards import STARTING_UP, idle_model
from app.tui.screens.confirm import ConfirmScreen
from app.tui.short_path import short_path

# The memory package loads with the runtime, in the worker thread after the first frame;
# everything from it is imported where it is used, never at start-up.
if TYPE_CHECKING:
    from app.context.memory import ForgetSelection
    from app.context.memory.manager import MemoryManager
    from app.runtime import Runtime

REMEMBER_USAGE = "Usage: /remember <what to remember>"
FORGET_USAGE = "Usage: /forget <memory text to remove>"


class MemoryActions:
    runtime: Runtime | None

    # -- the panel -----------------------------------------------------------------------------------

    def action_memory_panel(self) -> None:
        """F5 and /memory: open the panel (its own F5 closes it)."""
        from app.tui.screens.memory import MemoryScreen

        if self.runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        self.push_screen(MemoryScreen(self.runtime.memory))  # type: ignore[attr-defined]

    # -- the status line -----------------------------------------------------------------------------

    def watch_memory(self, manager: MemoryManager) -> None:
        """Show a (new) session's memory tasks in the status line (BackgroundStatusChanged keeps it current)."""
        self._show_memory_activity(manager)

    def _show_memory_activity(self, manager: MemoryManager) -> None:
        from app.context.memory.task_status import memory_activity

        if self.runtime is not None and self.runtime.memory is manager:
            self.status.memory = memory_activity(manager.extraction, manager.dream)  # type: ignore[attr-defined]

    # -- /remember -----------------------------------------------------------------------------------

    def action_remember(self, text: str = "") -> None:
        if not text.strip():
            self.notify(REMEMBER_USAGE, severity="warning")  # type: ignore[attr-defined]
            return
        if idle_model(self, "/remember") is None:
            return
        from app.context.prompt.base import template

        prompt = Template(template("remember")).safe_substitute(text=text.strip())
        # The conversation shows what was typed; the model gets the instructions around it.
        self._run_turn(prompt, shown=f"/remember {text.strip()}")  # type: ignore[attr-defined]

    # -- /forget ---------------------------------------------------------------------------------------

    def action_forget(self, text: str = "") -> None:
        if not text.strip():
            self.notify(FORGET_USAGE, severity="warning")  # type: ignore[attr-defined]
            return
        if self.runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        self._forget_flow(self.runtime.memory, text.strip())

    @work(group="memory-forget", exclusive=True, exit_on_error=False)
    async def _forget_flow(self, manager: MemoryManager, query: str) -> None:
        """Choose (the model, else text matching), show exactly what goes, delete only on y."""
        if manager.provider is not None:
            self.notify("Choosing the memories to forget…")  # type: ignore[attr-defined]
        selection = await manager.select_forget(query)
        if not selection.candidates:
            self.notify(f"No managed auto-memory entries matched: {query}", severity="warning")  # type: ignore[attr-defined]
            return
        question, detail = forget_question(query, selection)
        if not await self.push_screen_wait(ConfirmScreen(question, detail)):  # type: ignore[attr-defined]
            self.notify("Nothing was forgotten.")  # type: ignore[attr-defined]
            return
        from app.context.memory import (
            MemoryStoreError,
            SecretsInTeamMemoryError,
            TeamMemoryRootSecurityError,
        )

        try:
            result = manager.forget(selection.candidates)
        except (MemoryStoreError, SecretsInTeamMemoryError, TeamMemoryRootSecurityError, OSError) as error:  # a file that leads outside memory
            self.notify(f"Could not forget: {error}", severity="error", timeout=8)  # type: ignore[attr-defined]
            return
        for problem in result.problems:
            self.notify(problem, severity="warning")  # type: ignore[attr-defined]
        if result.removed:
            self.notify(result.message)  # type: ignore[attr-defined]

    # -- /dream ----------------------------------------------------------------------------------------

    def action_dream(self) -> None:
        if self.runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        manager = self.runtime.memory
        if manager.dream_now():
            self.notify("Consolidating the project memories in the background (F5 shows how it goes).")  # type: ignore[attr-defined]
        else:
            self.notify(f"Not consolidating: {manager.dream.detail}.", severity="warning")  # type: ignore[attr-defined]


def forget_question(query: str, selection: ForgetSelection) -> tuple[str, str]:
    """The confirmation's question and the exact files it acts on."""
    from app.context.memory.forget_preview import describe_item, forget_preview

    items = forget_preview(selection.candidates)
    noun = "file" if len(items) == 1 else "files"
    question = f"Forget what matches “{query}”? This changes {len(items)} memory {noun}:"
    lines = [describe_item(item, short_path(item.path)) for item in items]
    how = "Chosen by the model" if selection.strategy == "model" else "Chosen by matching the text"
    if selection.fallback_reason:
        how += f" (the model could not choose: {selection.fallback_reason})"
    return question, "\n".join(lines) + f"\n\n{how}; the memory indexes are rebuilt."
