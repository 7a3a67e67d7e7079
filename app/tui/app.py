"""The Textual application: one conversation screen, modals for approval, help, sessions and first run."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from app.config import Settings, load_settings
from app.core.events import (
    ApprovalNeeded,
    Decision,
)
from app.core.history import ToolCall
from app.fsutil import atomic_write_text
from app.paths import Paths, ensure_private_dir
from app.tui.commands import parse_command
from app.tui.compaction_actions import CompactionActions
from app.tui.hooks_actions import HooksActions
from app.tui.suggestion_actions import SuggestionActions
from app.tui.skills_actions import SkillsActions
from app.tui.context_actions import AUTO_SHOW_MAP_WIDTH, ContextActions
from app.tui.keys import GLOBAL_KEYS, bindings
from app.tui.memory_actions import MemoryActions
from app.tui.session_actions import SessionActions
from app.tui.screens.approval import ApprovalScreen
from app.tui.screens.first_run import FirstRunScreen
from app.tui.screens.help import HelpScreen
from app.tui.screens.sessions import SessionPickerScreen
from app.tui.turn_view import TurnView, tool_title
from app.tui.widgets.context_map import ContextMap
from app.tui.widgets.conversation import Conversation
from app.tui.widgets.gauge import BudgetGauge
from app.tui.widgets.prompt import PromptInput
from app.tui.widgets.status import StatusLine
from app.tui.widgets.transcript import Entry, entries_from_history

if TYPE_CHECKING:
    from app.runtime import Runtime

QUIT_WINDOW_SECONDS = 2.0
# On quit, background memory work and a title query get this long to finish.
EXIT_DRAIN_SECONDS = 5.0
# The picker lists this many sessions; its search covers every one.
PICKER_LIMIT = 1000
HISTORY_LIMIT = 500
# Priority keys reach the app under a modal too; these act on the conversation behind it, so a
# modal keeps them (e.g. pageup scrolls the help text, not the hidden conversation).
CONVERSATION_ACTIONS = frozenset({"load_earlier", "scroll_conversation"})


def build_runtime(*args, **kwargs):  # type: ignore[no-untyped-def]
    """app.runtime imports every context package: imported in the worker thread, after the first frame."""
    from app.runtime import build_runtime as build

    return build(*args, **kwargs)


def style_path(name: str) -> Path:
    return Path(str(resources.files("app").joinpath("styles", name)))


class AgentctxApp(ContextActions, CompactionActions, SkillsActions, MemoryActions, HooksActions, SessionActions, SuggestionActions, App[int]):
    CSS_PATH = [style_path("app.tcss"), style_path("screens.tcss")]
    BINDINGS = bindings(GLOBAL_KEYS)
    TITLE = "agentctx"

    def __init__(
        self,
        *,
        settings: Settings,
        paths: Paths,
        resume: str | None = None,
        continue_latest: bool = False,
        warm_up: bool = True,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.paths = paths
        self.runtime: Runtime | None = None
        self._resume = resume
        self._continue = continue_latest
        self._warm_up = warm_up
        # Watching skill dirs is a background task; tests of other things leave it off.
        self._watch = warm_up
        self._last_ctrl_c = 0.0
        self._approval: ApprovalScreen | None = None
        if settings.demo:
            self.title = "agentctx — DEMO (scripted local model)"

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield Conversation(max_mounted=self.settings.ui.max_mounted_messages, id="conversation")
            with Vertical(id="side"):
                yield Static(Content.from_markup("[b]Context map[/b] [$text-muted]F2 · ↑↓ · enter[/]"), id="side-title")
                yield ContextMap(id="context-map")
        yield Static("", id="command-hint")
        yield PromptInput(history=self._load_input_history(), id="prompt")
        yield BudgetGauge(id="gauge")
        yield StatusLine(id="status")
        yield Footer()

    @property
    def conversation(self) -> Conversation:
        return self.query_one("#conversation", Conversation)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    async def on_mount(self) -> None:
        self.query_one("#command-hint").display = False
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
            self.prompt.keymap = dict(self.settings.keymap)
        self._apply_theme()
        status = self.status
        status.demo = self.settings.demo
        status.model = self.settings.model.name if self.settings.has_endpoint else ""
        self._restore_draft()
        self._show_side(self.size.width >= AUTO_SHOW_MAP_WIDTH)
        self.prompt.focus()
        if not self.settings.has_endpoint:
            self.push_screen(FirstRunScreen(self.paths))
        elif self._warm_up:
            self._import_model_client()
        self._open_session(resume=self._resume, continue_latest=self._continue)

    def _apply_theme(self) -> None:
        theme = self.settings.ui.theme
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notify(f"Unknown theme '{theme}' in settings (ui.theme); using the default.", severity="warning")

    @work(thread=True, group="warm-up", exit_on_error=False)
    def _import_model_client(self) -> None:
        # The HTTP client takes a twentieth of a second to import: do it while the person types.
        from app.core.llm.http_client import load_httpx2

        load_httpx2()

    # -- sessions -------------------------------------------------------------------------------

    @work(exclusive=True, group="session", exit_on_error=False)
    async def _open_session(self, resume: str | None = None, continue_latest: bool = False) -> None:
        status = self.status
        if resume or continue_latest:
            status.state = "loading session…"
        problem = ""
        try:
            runtime = await asyncio.to_thread(
                build_runtime, self.settings, self.paths, resume=resume, continue_latest=continue_latest
            )
        except Exception as exc:  # a missing or unreadable session: say so, start fresh
            problem = str(exc)
            self.notify(problem, severity="error", timeout=8)
            runtime = await asyncio.to_thread(build_runtime, self.settings, self.paths)
        self.dismiss_suggestion()  # a turn prepared for the old session has no place in the new one
        previous, self.runtime = self.runtime, runtime
        if previous is not None:
            await previous.aclose()
        registry = runtime.registry

        def summarize(call: ToolCall) -> str:
            return tool_title(registry, call)

        await self.conversation.replace_all(entries_from_history(runtime.resumed_messages, summarize))
        if problem:  # after replace_all, which would otherwise remove it at once
            await self.conversation.add(Entry(kind="error", text=problem))
        for warning in runtime.warnings:
            self.notify(warning, severity="warning", timeout=8)
            await self.conversation.add(Entry(kind="notice", text=warning))
        status.session_id = runtime.session_id
        self.watch_memory(runtime.memory)
        self.watch_drafts(runtime.drafter)
        status.context_window = runtime.context_window if self.settings.has_endpoint else 0
        last = runtime.agent.last_usage if runtime.agent else None
        # No answer since the latest compaction: the size that compaction left is the best figure.
        status.used_tokens = (last.prompt_tokens + last.completion_tokens) if last else runtime.resumed_tokens
        self.gauge.pct = self.settings.compaction.pct
        self.query_one(ContextMap).pct = self.settings.compaction.pct
        source = "reported" if last else ("estimate" if runtime.resumed_tokens else "")
        self.gauge.set_usage(status.used_tokens, status.context_window, source=source)
        status.state = "idle"
        if runtime.assembler.counter.can_be_exact:
            self._load_exact_counts(runtime)
        self._start_hooks(runtime, "resume" if (resume or continue_latest) else "startup")
        if resume or continue_latest:
            self.recap_after_break(runtime)
        if self._watch:
            self._watch_skills(runtime.skills)

    def action_sessions(self) -> None:
        if not isinstance(self.screen, SessionPickerScreen):
            self._open_picker()

    @work(exclusive=True, group="session-picker", exit_on_error=False)
    async def _open_picker(self) -> None:
        from app.core.session.listing import list_sessions

        # Off the event loop: a project can hold a thousand sessions.
        try:
            sessions = await asyncio.to_thread(list_sessions, self.paths.chats_dir, limit=PICKER_LIMIT)
        except OSError as error:  # e.g. the data dir is unreadable: say so rather than do nothing
            self.notify(f"Could not list the sessions: {error}", severity="error", timeout=8)
            return
        current = self.runtime.session_id if self.runtime else None

        def chosen(session_id: str | None) -> None:
            if session_id and session_id != current:
                self._switch_session(session_id)

        self.push_screen(SessionPickerScreen(sessions, current=current, chats_dir=self.paths.chats_dir), chosen)

    def _switch_session(self, session_id: str) -> None:
        if self._busy():
            self.notify("A turn is running; press Esc to cancel it before switching sessions.", severity="warning")
            return
        self._open_session(resume=session_id)

    def action_new_session(self) -> None:
        if self._busy():
            self.notify("A turn is running; press Esc to cancel it first.", severity="warning")
            return
        self._open_session()
        self.notify("New session started; the previous one stays in ctrl+r.")

    # -- prompt -------------------------------------------------------------------------------

    def on_prompt_input_command_hint(self, message: PromptInput.CommandHint) -> None:
        hint = self.query_one("#command-hint", Static)
        hint.display = bool(message.matches)
        if message.matches:
            if len(message.matches) > 3:  # one line: names only when many fit the typed prefix
                parts = [f"[b]/{c.name}[/b]" for c in message.matches]
            else:
                parts = [f"[b]/{c.name}[/b] [$text-muted]{c.description}[/]" for c in message.matches]
            hint.update(Content.from_markup("  ".join(parts) + "   [$text-muted](tab completes)[/]"))

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        parsed = parse_command(text)
        if parsed is not None:
            if parsed.command is None:
                self.notify(f"Unknown command /{parsed.word}. Type / to see the commands.", severity="warning")
                return
            self._clear_prompt(text)
            self.record_slash_command(text.strip())
            await self.run_action(parsed.command.action_call(parsed.argument))
            return
        if self.runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")
            return
        if self.runtime.agent is None:
            from app.runtime import NO_ENDPOINT_MESSAGE

            self.notify(NO_ENDPOINT_MESSAGE, severity="error", timeout=10)
            return  # the text stays in the prompt
        if self._busy():
            self.notify("A turn is running; wait for it or press Esc to cancel it.", severity="warning")
            return
        self._clear_prompt(text)
        self._run_turn(text)

    def _clear_prompt(self, text: str) -> None:
        self._append_input_history(text)
        self.prompt.load_text("")

    def _busy(self) -> bool:
        return bool(self.runtime and self.runtime.agent and self.runtime.agent.busy)

    # -- a turn -------------------------------------------------------------------------------

    @work(exclusive=False, group="turn", exit_on_error=False)
    async def _run_turn(self, prompt: str) -> None:
        assert self.runtime is not None and self.runtime.agent is not None
        agent = self.runtime.agent
        conversation = self.conversation
        await conversation.add(Entry(kind="user", text=prompt))
        conversation.scroll_end(animate=False)
        conversation.anchor()
        self.status.state = "thinking…"
        handler = TurnView(self, conversation)
        self.dismiss_suggestion()
        finished = False
        async for event in agent.run(prompt):
            await handler.handle(event)
            finished = event.kind == "turn_finished"
        if finished:
            self.after_answer()

    def ask_approval(self, event: ApprovalNeeded, entry: Entry | None) -> None:
        future = event.future
        if future is None:
            return
        self.status.state = "waiting for approval"
        screen = ApprovalScreen(tool_name=event.call.name, summary=event.summary, detail=event.detail, tool_kind=event.tool_kind)
        self._approval = screen

        def answered(decision: Decision | None) -> None:
            self._approval = None
            if not future.done():
                future.set_result(decision or Decision.REJECT)
            self.status.state = "running tool…"

        self.push_screen(screen, answered)

    def close_approval(self) -> None:
        if self._approval is not None and self._approval.is_current:
            self._approval.dismiss(Decision.REJECT)
        self._approval = None

    # -- actions --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in CONVERSATION_ACTIONS and isinstance(self.screen, ModalScreen):
            return False
        return True

    def action_cancel_turn(self) -> None:
        if self.skip_pending_compaction() or self.stop_finishing_speculation():
            return
        if self.runtime and self.runtime.agent and self.runtime.agent.cancel():
            self.status.state = "cancelling…"

    def action_quit_pressed(self) -> None:
        selected = self.screen.get_selected_text() if hasattr(self.screen, "get_selected_text") else None
        if selected:
            self.copy_to_clipboard(selected)
            self.notify("Copied the selection.")
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_SECONDS:
            self._save_draft()
            self.exit(0)
            return
        self._last_ctrl_c = now
        self.notify("Press ctrl+c again to quit.", timeout=QUIT_WINDOW_SECONDS)

    async def on_unmount(self) -> None:
        self.drop_speculation()  # its shadow copy goes with it
        if self.runtime is not None:
            await self.runtime.aclose(drain_seconds=EXIT_DRAIN_SECONDS)

    async def action_quit(self) -> None:
        self._save_draft()
        self.exit(0)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.settings.keymap))

    def action_toggle_tools(self) -> None:
        conversation = self.conversation
        conversation.set_tools_expanded(not conversation.tools_expanded)

    async def action_load_earlier(self) -> None:
        added = await self.conversation.load_earlier()
        if not added:
            self.notify("This is the start of the session.")

    def action_scroll_conversation(self, direction: int) -> None:
        conversation = self.conversation
        if direction < 0:
            conversation.scroll_page_up(animate=False)
        else:
            conversation.scroll_page_down(animate=False)

    def action_scroll_conversation_end(self) -> None:
        self.conversation.scroll_end(animate=False)
        self.conversation.anchor()

    def action_copy_last(self) -> None:
        text = self.conversation.transcript.last_answer()
        if not text:
            self.notify("There is no answer to copy yet.", severity="warning")
            return
        self.copy_to_clipboard(text)
        self.notify(f"Copied the last answer ({len(text)} characters).")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help: keys and commands", "Every key and /command", self.action_help)
        yield SystemCommand("Sessions: resume an earlier session", "Newest first, with the first prompt", self.action_sessions)
        yield SystemCommand("Sessions: start a new session", "The current one stays recorded", self.action_new_session)
        yield SystemCommand("Conversation: expand or collapse tool output", "ctrl+o", self.action_toggle_tools)
        yield SystemCommand("Conversation: copy the last answer", "To the clipboard", self.action_copy_last)
        yield SystemCommand("Turn: cancel the running turn", "esc", self.action_cancel_turn)

    # -- what survives a restart ----------------------------------------------------------------

    def _load_input_history(self) -> list[str]:
        path = self.paths.input_history_file
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[-HISTORY_LIMIT:]
        except OSError:
            return []
        history: list[str] = []
        for line in lines:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a crash; the rest is fine
            if isinstance(value, str):
                history.append(value)
        return history

    def _append_input_history(self, text: str) -> None:
        try:
            ensure_private_dir(self.paths.project_state_dir)
            # Bytes in one write, as the session record does: a long prompt is never split in two.
            line = (json.dumps(text, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
            with self.paths.input_history_file.open("ab") as handle:
                handle.write(line)
        except OSError as exc:
            self.notify(f"Could not save the prompt history: {exc}", severity="warning")

    @property
    def _draft_file(self) -> Path:
        return self.paths.project_state_dir / "prompt-draft.txt"

    def _save_draft(self) -> None:
        """Unsent words survive quitting: they come back in the prompt next time."""
        try:
            text = self.prompt.text
        except Exception:
            return
        try:
            if text.strip():
                ensure_private_dir(self.paths.project_state_dir)
                atomic_write_text(self._draft_file, text, mode=0o600)
            elif self._draft_file.exists():
                self._draft_file.unlink()
        except OSError:
            pass

    def _restore_draft(self) -> None:
        try:
            text = self._draft_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        if text.strip():
            self.prompt.load_text(text)
            self.prompt.move_cursor(self.prompt.document.end)


def run_tui(
    *,
    settings: Settings | None = None,
    paths: Paths | None = None,
    resume: str | None = None,
    continue_latest: bool = False,
    demo: bool = False,
) -> int:
    paths = paths or Paths.for_cwd()
    settings = settings or load_settings(paths)
    if demo:
        settings.demo = True
        # The scripted demo model cannot play the memory agents; recall still works (heuristically).
        settings.memory.extraction = settings.memory.dream = settings.memory.recall_model = False
        settings.suggestions.enabled = False
        settings.sessions.auto_title = settings.sessions.recap_on_resume = False
    app = AgentctxApp(settings=settings, paths=paths, resume=resume, continue_latest=continue_latest)
    result = app.run()
    return int(result or 0)
