"""Rewind from the keyboard: Esc Esc (no turn running) or /rewind.

The picker lists the person's earlier messages; choosing one takes the conversation back
to just before it (a ``rewind`` record; nothing is deleted), puts the message back in the
prompt (unsent text there goes to the prompt history, one ↑ away, never glued to it), and then offers to undo the file changes the
agent's edit and write_file calls made since, as far as the record holds them
(app.core.session.rewind_undo). What cannot be put back is said, not skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.core.session.records import SUBTYPE_FILE_CHANGE
from app.core.session.rewind import RewindPoint, rewind_points
from app.core.session.rewind_undo import UndoPlan, UndoResult, apply_undo, plan_undo, restore_payload

from app.tui.messages import GaugeFollowsMap

if TYPE_CHECKING:
    from textual.worker import Worker

    from app.tui.host import TuiHost
    from app.core.session.resume import LoadedSession
    from app.runtime import Runtime

# The second Esc must come this soon after the first.
DOUBLE_ESCAPE_SECONDS = 0.8
NOTHING_TO_REWIND = "There is no earlier message of yours in this conversation to rewind to."


def prompt_text(message: str) -> str:
    """The words the person typed: files an @mention attached are not part of them."""
    from app.context.mentions import HEADER

    return message.split(f"\n\n{HEADER}\n", 1)[0]


def undo_question(plan: UndoPlan) -> tuple[str, str]:
    """The confirmation: which files would be put back or removed, and what cannot be."""
    count = len(plan.restores)
    question = f"Undo the agent's changes to {count} file{'s' if count != 1 else ''} since that message?"
    lines = [f"  {'remove ' if r.action == 'remove' else 'restore'} {r.shown}" for r in plan.restores]
    return question, "\n".join(lines + cannot_lines(plan))


def cannot_lines(plan: UndoPlan) -> list[str]:
    lines = [f"Not restored: {text}" for text in plan.refused]
    for name, calls in sorted(plan.other_tool_calls.items()):
        lines.append(f"Not undone: {calls} {name} call{'s' if calls != 1 else ''} since then (what they changed is not recorded).")
    return lines


def result_text(result: UndoResult) -> str:
    done = ", ".join(f"{r.shown} ({'removed' if r.action == 'remove' else 'restored'})" for r in result.done)
    count = len(result.done)
    parts = [f"Undid the agent's changes to {count} file{'s' if count != 1 else ''}: {done}."] if result.done else []
    parts += [f"Not restored: {text}" for text in result.failed]
    return " ".join(parts) or "No file was changed."


class RewindController:
    def __init__(
        self,
        host: TuiHost,
        *,
        refresh_map: Callable[[Runtime], Worker[None]],
        dismiss_suggestion: Callable[[], None],
        escape_taken: Callable[[], bool],
        keymap: Callable[[], Any],
    ) -> None:
        self.host = host
        self._escape_taken = escape_taken  # a compaction countdown or a finishing suggestion has Esc
        self._keymap = keymap
        self._refresh_map = refresh_map
        self._dismiss_suggestion = dismiss_suggestion
        self._last_escape = 0.0

    # -- opening the picker ---------------------------------------------------------------------

    def escape_is_free(self) -> bool:
        """Nothing for Esc to cancel or skip, on the conversation screen: Esc Esc may rewind."""
        from textual.screen import ModalScreen

        if isinstance(self.host.screen, ModalScreen) or self.host.busy():
            return False
        return not self._escape_taken()

    def escape_unused(self) -> None:
        """Esc found nothing to cancel: when the rewind key is that same key, it counts towards Esc Esc."""
        from app.tui.keys import GLOBAL_KEYS, effective_key

        specs = {spec.id: spec for spec in GLOBAL_KEYS}
        keymap = self._keymap()
        if self.escape_is_free() and effective_key(specs["rewind"], keymap) == effective_key(specs["cancel"], keymap):
            self.escape()

    def escape(self) -> None:
        """Esc with no turn running: the second one within the window opens the picker."""
        now = time.monotonic()
        if now - self._last_escape <= DOUBLE_ESCAPE_SECONDS:
            self._last_escape = 0.0
            self.open(quiet=True)
            return
        self._last_escape = now

    def open(self, *, quiet: bool = False) -> None:
        """``quiet``: Esc Esc in a conversation with nothing to go back to does nothing, not a toast."""
        runtime = self.host.runtime
        if runtime is None or runtime.agent is None:
            if not quiet:
                self.host.notify("Still starting up (or no model endpoint); nothing to rewind yet.", severity="warning")
            return
        if self.host.busy():
            self.host.notify("A turn is running; press Esc to cancel it before rewinding.", severity="warning")
            return
        if not rewind_points(runtime.agent.history):
            if not quiet:
                self.host.notify(NOTHING_TO_REWIND, severity="warning")
            return
        self.host.run_worker(self._pick(runtime), group="rewind", exclusive=True, exit_on_error=False)

    async def _pick(self, runtime: Runtime) -> None:
        from app.core.session.resume import load_session
        from app.tui.screens.rewind import RewindScreen

        agent = runtime.agent
        assert agent is not None
        loaded: LoadedSession | None = None
        path = runtime.recorder.path
        if path.exists():
            try:  # times and the record's uuids; a long session takes a moment, so off the event loop
                loaded = await asyncio.to_thread(load_session, path)
            except OSError:
                loaded = None
        points = rewind_points(agent.history, loaded)
        point = await self.host.push_screen_wait(RewindScreen(points))
        if point is None:
            return
        try:
            await self.rewind(runtime, point, loaded)
        except Exception as exc:  # a bug must be seen, not swallowed by the worker
            self.host.notify(f"The rewind stopped part way: {type(exc).__name__}: {exc}", severity="error", timeout=10)

    # -- going back ------------------------------------------------------------------------------

    async def rewind(self, runtime: Runtime, point: RewindPoint, loaded: LoadedSession | None) -> None:
        agent = runtime.agent
        assert agent is not None
        if self.host.busy():
            self.host.notify("A turn started meanwhile; nothing was rewound.", severity="warning")
            return
        if point.index >= len(agent.history) or agent.history[point.index].content != point.text:
            self.host.notify("The conversation changed meanwhile; nothing was rewound. Try again.", severity="warning")
            return
        self._dismiss_suggestion()  # prepared for the conversation as it was; its shadow goes too
        agent.rewind(point.index, point.payload())
        await self._show_view(runtime)
        self._put_back_in_prompt(prompt_text(point.text))
        plan = self._plan(runtime, point, loaded)
        await self._offer_undo(runtime, plan)

    async def _show_view(self, runtime: Runtime) -> None:
        from app.tui.turn_view import tool_title
        from app.tui.widgets.transcript import Entry, entries_from_history

        agent = runtime.agent
        assert agent is not None
        registry = runtime.registry
        await self.host.conversation.replace_all(entries_from_history(agent.history, lambda call: tool_title(registry, call)))
        await self.host.conversation.add(Entry(kind="notice", text="Rewound: the conversation continues from here; the record keeps what came after."))
        worker = self._refresh_map(runtime)  # a worker: the request is assembled off the event loop
        try:
            await worker.wait()
        except Exception:  # noqa: BLE001 - the map keeps its last picture; the rewind itself is done
            pass
        self.host.post_message(GaugeFollowsMap())

    def _put_back_in_prompt(self, text: str) -> None:
        from app.tui import prompt_store

        prompt = self.host.prompt
        if prompt.text.strip() != text.strip() and prompt_store.shelve_draft(self.host.paths, prompt):
            self.host.notify("The message is back in the prompt; what you had typed is in the prompt history (↑).")
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    def _plan(self, runtime: Runtime, point: RewindPoint, loaded: LoadedSession | None) -> UndoPlan:
        from app.core.tools.base import ToolKind

        if loaded is None or point.uuid is None:
            plan = UndoPlan()
            plan.refused.append("The session record does not hold this message, so it cannot say which files changed since.")
            return plan
        side_effects = frozenset(t.name for t in runtime.registry.tools() if t.kind in (ToolKind.EXECUTE, ToolKind.EXTERNAL))
        return plan_undo(loaded.records, point.uuid, runtime.agent.tool_context.root, side_effect_tools=side_effects)  # type: ignore[union-attr]

    async def _offer_undo(self, runtime: Runtime, plan: UndoPlan) -> None:
        from app.tui.screens.confirm import ConfirmScreen
        from app.tui.widgets.transcript import Entry

        if plan.empty:
            return
        if not plan.restores:
            await self.host.conversation.add(Entry(kind="notice", text="No file change to undo. " + " ".join(cannot_lines(plan))))
            return
        question, detail = undo_question(plan)
        if not await self.host.push_screen_wait(ConfirmScreen(question, detail)):
            await self.host.conversation.add(Entry(kind="notice", text="Files left as they are (the undo was declined)."))
            return
        root = runtime.agent.tool_context.root  # type: ignore[union-attr]
        result = await asyncio.to_thread(apply_undo, plan, root)
        for restore in result.done:
            try:
                runtime.recorder.append_system(SUBTYPE_FILE_CHANGE, restore_payload(restore))
            except OSError as exc:
                self.host.notify(f"The undo is done but could not be recorded: {exc}", severity="warning")
                break
        text = result_text(result)
        await self.host.conversation.add(Entry(kind="notice", text=text))
        self.host.notify(text, severity="warning" if result.failed else "information", timeout=8)
