"""A turn from the person's side: sending a prompt (with its @files), a /skill, retrying a failed one.

What the turn's events look like is ``TurnView``'s; what happens after an answer (a suggested next
step) is the suggestion controller's, reached through the small ``FollowUps`` Protocol below so
that neither module imports the other.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol

from app.tui.messages import PendingChanged, StatusChanged
from app.tui.widgets.transcript import Entry

if TYPE_CHECKING:
    from app.core.events import Event
    from app.tui.host import TuiHost
    from app.tui.turn_view import TurnView

NEEDS_IDLE = "A turn is running; wait for it or press Esc to cancel it."


class FollowUps(Protocol):
    """What follows a turn: a suggestion dropped when one starts, a new one looked for when it ends."""

    def dismiss(self) -> None: ...

    def after_answer(self) -> None: ...


class TurnController:
    def __init__(
        self,
        host: TuiHost,
        *,
        new_view: Callable[[], TurnView],
        follow_ups: FollowUps,
        expand: Callable[[str], Awaitable[str | None]],
    ) -> None:
        self.host = host
        self._new_view = new_view
        self._follow_ups = follow_ups
        self._expand = expand  # an MCP server's prompt, @server:uri resources
        self.failed = False  # the last turn failed: ctrl+y retries it (else ctrl+y copies the answer)

    def run_skill(self, name: str, args: str = "") -> None:
        """``/review focus on tests``: the skill's instructions are this turn's message."""
        host = self.host
        runtime = host.runtime
        if runtime is None or runtime.agent is None:
            from app.runtime import NO_ENDPOINT_MESSAGE

            host.notify(NO_ENDPOINT_MESSAGE if runtime else "Still starting up; try again in a moment.", severity="warning")
            return
        if host.busy():
            host.notify(NEEDS_IDLE, severity="warning")
            return
        from app.context.skills import SKILL_TOOL_NAME, SkillTool
        from app.context.skills.tool import run_for_person
        from app.core.tools.errors import ToolError

        tool = runtime.registry.get(SKILL_TOOL_NAME)
        if not isinstance(tool, SkillTool):
            host.notify("Skills are not available in this session.", severity="warning")
            return
        try:
            invocation = run_for_person(tool, name, args.strip() or None)
        except ToolError as exc:
            host.notify(str(exc), severity="warning", timeout=8)
            return
        shown = f"/{name} {args.strip()}".rstrip()
        self.run(invocation.content, shown=shown)

    def run(self, prompt: str, shown: str | None = None) -> None:
        """Send ``prompt`` as a turn (``shown`` is what the conversation shows instead, e.g. the /command)."""
        self.host.run_worker(partial(self._run_turn, prompt, shown), name="_run_turn", group="turn", exit_on_error=False)

    async def _run_turn(self, prompt: str, shown: str | None = None) -> None:
        host = self.host
        assert host.runtime is not None and host.runtime.agent is not None
        agent = host.runtime.agent
        conversation = host.conversation
        host.post_message(PendingChanged(0))
        problems: list[str] = []
        attached = ""
        if shown is None and "@" in prompt:
            from app.context.mentions import attach_mentions

            mentioned = await asyncio.to_thread(attach_mentions, prompt, host.paths.project_root)
            shown, prompt, problems = prompt, mentioned.message, mentioned.problems
            if mentioned.attachments:
                names = ", ".join(f"@{a.path}" for a in mentioned.attachments)
                attached = f"Attached {names} ({mentioned.attached_chars:,} characters)."
        await conversation.add(Entry(kind="user", text=shown or prompt))
        for problem in problems:
            await conversation.add(Entry(kind="notice", text=f"Not attached: {problem}"))
        if attached:
            await conversation.add(Entry(kind="notice", text=attached))
        expanded = await self._expand(prompt)
        if expanded is None:
            host.post_message(StatusChanged(state="idle"))
            return
        await self._follow(agent.run(expanded))

    async def _follow(self, events: AsyncIterator[Event]) -> None:
        """Show a turn's events as they come; remember whether it failed (ctrl+y then retries it)."""
        host = self.host
        conversation = host.conversation
        conversation.scroll_end(animate=False)
        conversation.anchor()
        host.post_message(StatusChanged(state="thinking…", turn_started=time.monotonic()))
        view = self._new_view()
        self._follow_ups.dismiss()
        self.failed = False
        last = ""
        try:
            async for event in events:
                await view.handle(event)
                last = event.kind
        finally:
            host.post_message(StatusChanged(turn_started=None))
        self.failed = last == "turn_failed"
        if last == "turn_finished":
            self._follow_ups.after_answer()

    def can_retry(self) -> bool:
        runtime = self.host.runtime
        agent = runtime.agent if runtime else None
        return bool(self.failed and agent is not None and not agent.busy and agent.can_resend())

    def retry(self) -> None:
        if not self.can_retry():
            return
        self.host.run_worker(self._retry_turn, name="_retry_turn", group="turn", exit_on_error=False)

    async def _retry_turn(self) -> None:
        runtime = self.host.runtime
        assert runtime is not None and runtime.agent is not None
        await self.host.conversation.add(Entry(kind="notice", text="Retrying: the same request goes to the model again."))
        await self._follow(runtime.agent.resend())
