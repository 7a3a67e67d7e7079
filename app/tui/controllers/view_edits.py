"""Hand edits of the view from the context map: drop, restore, pin and rewrite the summary.

A controller, not a mixin: the map posts ``ContextMap.EditAsked`` and the app hands it here.
Each edit is applied to the assembler's ``ViewEdits`` and recorded (a ``view_edit`` record),
then the map and the gauge are re-estimated at once. Before a drop or a summary rewrite the
person is told how many tokens the endpoint reported as cached will be sent afresh (a prefix
cache ends at the first changed part) and asked to confirm when that is more than none.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.context.view_edits import ViewEditError, cache_loss, commit, turn_ids
from app.tui.messages import MapChanged, UsageChanged
from app.tui.screens.confirm import ConfirmScreen
from app.tui.widgets.status import format_tokens

if TYPE_CHECKING:
    from app.core.request import RequestPart
    from app.runtime import Runtime
    from app.tui.host import TuiHost
    from app.tui.widgets.context_map import ContextMap

NOT_A_PART = "Only a part of the conversation can be edited: open a pool of messages with → (or l) and choose one."
ONLY_SUMMARIES = "Only a compaction summary can be rewritten (e on a summary); drop (d) works on any part."
ONLY_TURNS = "D drops a whole turn: choose a message you typed (in user messages); d drops one part."


class ViewEditController:
    def __init__(self, host: TuiHost) -> None:
        self.host = host

    @property
    def runtime(self) -> Runtime | None:
        return self.host.runtime

    def asked(self, message: ContextMap.EditAsked) -> None:
        """One key on the map: d, D, r, p (toggles) or e."""
        if self.runtime is None:
            return
        part = message.part
        if part is None:
            self.host.notify(NOT_A_PART, severity="warning")
            return
        action = message.action
        if action == "pin" and part.edit == "pinned":
            action = "unpin"
        if action == "replace":
            self.edit_summary(part)
        elif action == "drop_turn":
            self.drop_turn(part)
        elif action == "drop":
            self._with_cost(part, "drop", lambda: self.edit("drop", part))
        else:
            self.edit(action, part)

    def lost_to_cache(self, part: RequestPart) -> int:
        """Tokens of the last request's cached prefix that changing ``part`` sends afresh."""
        assembler = self.runtime.assembler if self.runtime else None
        if assembler is None or assembler.last_request is None or assembler.last_usage is None:
            return 0
        return cache_loss(assembler.last_request.parts, assembler.last_usage.cached_tokens, part.part_id)

    def _with_cost(self, part: RequestPart, verb: str, then: Any) -> None:
        lost = self.lost_to_cache(part)
        if lost <= 0:
            then()
            return
        question = f"{verb[0].upper()}{verb[1:]} {part.part_id}? {format_tokens(lost)} cached tokens will be sent afresh."
        detail = (
            f"The endpoint reported {format_tokens(lost)} tokens from this part on as cached in the last request; "
            "the next request re-sends them uncached. The record keeps the part; r restores it."
        )
        self.host.push_screen(ConfirmScreen(question, detail), lambda yes: then() if yes else None)

    def edit(self, action: str, part: RequestPart, text: str = "") -> bool:
        runtime = self.runtime
        if runtime is None:
            return False
        lost = self.lost_to_cache(part) if action in ("drop", "replace") else 0
        try:
            commit(runtime.assembler.view_edits, runtime.recorder, action, part.part_id, text)
        except (ViewEditError, OSError) as exc:
            self.host.notify(f"Could not {action} {part.part_id}: {exc}", severity="error")
            return False
        done = {"drop": "Dropped", "restore": "Restored", "pin": "Pinned", "unpin": "Unpinned", "replace": "Rewrote"}[action]
        cost = f" The next request re-sends {format_tokens(lost)} cached tokens." if lost else ""
        how = {
            "drop": " from the view (the record keeps it; r restores it).",
            "pin": ": it survives compaction and is re-attached verbatim after a summary.",
            "replace": " in the view (r restores the original).",
        }.get(action, ".")
        self.host.notify(f"{done} {part.part_id} ({part.name}){how}{cost}")
        self.show_estimate(runtime)
        return True

    def show_estimate(self, runtime: Runtime) -> None:
        """The map and the gauge move at once to what the next request will hold."""
        history = list(runtime.agent.history if runtime.agent else runtime.resumed_messages)
        try:
            request = runtime.assembler.assemble(history, runtime.tools.schemas())
        except Exception as exc:  # a broken system.md: the edit is made, the estimate says why it is missing
            self.host.notify(f"The map could not be re-estimated: {exc}", severity="warning")
            return
        self.host.post_message(MapChanged(request))
        # The same figure as the map's header (our count of the edited request) until the next answer reports one.
        self.host.post_message(UsageChanged(request.total_tokens, runtime.context_window, source="estimate"))

    def drop_turn(self, part: RequestPart) -> None:
        """D on a message the person typed: it and every part up to the next one, as one edit per part."""
        runtime = self.runtime
        if runtime is None:
            return
        from app.context.compaction.pairing import repair_tool_pairs

        history = repair_tool_pairs(list(runtime.agent.history if runtime.agent else runtime.resumed_messages)).messages
        ids = turn_ids(history, part.part_id) if part.kind == "user" else []
        if not ids:
            self.host.notify(ONLY_TURNS, severity="warning")
            return

        def drop_all() -> None:
            lost = self.lost_to_cache(part)
            try:
                for pid in ids:
                    commit(runtime.assembler.view_edits, runtime.recorder, "drop", pid)
            except OSError as exc:
                self.host.notify(f"Could not drop the turn: {exc}", severity="error")
                return
            cost = f" The next request re-sends {format_tokens(lost)} cached tokens." if lost else ""
            self.host.notify(f"Dropped the turn from {part.part_id}: {len(ids)} parts (the record keeps them; r restores each).{cost}")
            self.show_estimate(runtime)

        self._with_cost(part, "drop the turn from", drop_all)

    def edit_summary(self, part: RequestPart) -> None:
        if part.kind != "summary":
            self.host.notify(ONLY_SUMMARIES, severity="warning")
            return
        lost = self.lost_to_cache(part)
        if lost:
            self.host.notify(f"Rewriting the summary sends {format_tokens(lost)} cached tokens afresh on the next request.")
        from app.tui.editor import EditorError, editor_command, run_editor
        from textual.app import SuspendNotSupported

        with tempfile.TemporaryDirectory(prefix="agentctx-summary-") as folder:
            path = Path(folder) / f"{part.part_id}.md"
            path.write_text(part.text, encoding="utf-8")
            try:
                command = editor_command()
                with self.host.suspend():
                    status = run_editor(command, path)
            except EditorError as error:
                self.host.notify(str(error), severity="error", timeout=8)
                return
            except SuspendNotSupported:
                self.host.notify("This terminal cannot hand the screen to an editor.", severity="error", timeout=8)
                return
            text = path.read_text(encoding="utf-8", errors="replace")
        if status != 0:
            self.host.notify(f"The editor exited with status {status}; the summary is unchanged.", severity="warning")
        elif text.strip() == part.text.strip():
            self.host.notify("The summary is unchanged.")
        else:
            self.edit("replace", part, text)
