"""The Textual application: one conversation screen, modals for approval, help, sessions and first run."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.notifications import SeverityLevel
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from app.config import Settings, load_settings
from app.core.events import (
    ApprovalNeeded,
    Decision,
    Event,
)
from app.core.history import ToolCall
from app.fsutil import atomic_write_text
from app.paths import Paths, ensure_private_dir
from app.core.events import MEMORY_WORK, SKILL_DRAFTS, SKILLS_ON_DISK
from app.tui.background_status import BackgroundStatusChanged, follow, forward_to_screens
from app.tui.commands import SlashCommand, parse_command, skill_commands
from app.tui.compaction_actions import CompactionActions
from app.tui.controllers.modes import ModeController
from app.tui.hooks_actions import HooksActions
from app.tui.mcp_actions import McpActions
from app.tui.trust_actions import TrustActions
from app.tui.suggestion_actions import SuggestionActions
from app.tui.skills_actions import SkillsActions
from app.tui.context_actions import ContextActions
from app.tui.keys import GLOBAL_KEYS, bindings, plan_keymap
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
# Priority keys reach the app under a modal too; these act on the screen behind it, so a
# modal keeps them (e.g. pageup scrolls the help text, shift+tab moves focus in a dialog).
CONVERSATION_ACTIONS = frozenset({"load_earlier", "scroll_conversation", "cycle_approval_mode"})


def loaded_instructions_line(runtime: Runtime) -> str:
    """Which instruction files this session reads, said once when it opens."""
    from app.tui.widgets.status import format_tokens

    rows = [r for r in runtime.assembler.instruction_rows() if r.status != "MISSING"]
    if not rows:
        return ""
    names = ", ".join(r.name for r in rows[:6]) + (f" and {len(rows) - 6} more" if len(rows) > 6 else "")
    tokens = format_tokens(sum(r.tokens for r in rows))
    return f"Instruction files: {names} ({tokens} tokens) · /memory show reads them as sent"


def build_runtime(*args, **kwargs):  # type: ignore[no-untyped-def]
    """app.runtime imports every context package: imported in the worker thread, after the first frame."""
    from app.runtime import build_runtime as build

    return build(*args, **kwargs)


def style_path(name: str) -> Path:
    return Path(str(resources.files("app").joinpath("styles", name)))


class AgentctxApp(
    ContextActions,
    CompactionActions,
    SkillsActions,
    MemoryActions,
    HooksActions,
    TrustActions,
    McpActions,
    SessionActions,
    SuggestionActions,
    App[int],
):
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
        self.key_plan = plan_keymap(settings.keymap)
        self._make_priority(self.key_plan.priority_ids)
        self.runtime: Runtime | None = None
        self._resume = resume
        self._continue = continue_latest
        self._warm_up = warm_up
        # Watching skill dirs is a background task; tests of other things leave it off.
        self._watch = warm_up
        self._last_ctrl_c = 0.0
        self._approval: ApprovalScreen | None = None
        self.modes = ModeController(self)
        self._refresh_skill_commands: Callable[[], None] = lambda: None
        # The project's files for @path completion: listed once, on the first @ typed.
        self._project_files: list[str] | None = None
        self._failed_turn = False  # the last turn failed: ctrl+y retries it (else ctrl+y copies the answer)
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

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Toasts are plain text: file names, commands and model words with brackets show as written
        ("/compress [focus]" lost its "[focus]" as markup)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def _make_priority(self, ids: set[str]) -> None:
        """A global key remapped onto one the prompt uses itself must reach the app first."""
        if not ids:
            return
        import dataclasses

        for key, found in self._bindings.key_to_bindings.items():
            self._bindings.key_to_bindings[key] = [
                dataclasses.replace(b, priority=True) if b.id in ids else b for b in found
            ]

    async def on_mount(self) -> None:
        self.query_one("#command-hint").display = False
        applied = {key_id: keys for key_id, keys in self.key_plan.keymap.items() if keys}
        if applied:
            self.set_keymap(applied)
            self.prompt.keymap = dict(applied)
        for problem in self.key_plan.problems:
            self.notify(problem, severity="warning", timeout=10)
        self._apply_theme()
        status = self.status
        status.demo = self.settings.demo
        status.model = self.settings.model.name if self.settings.has_endpoint else ""
        self._restore_draft()
        self.follow_width(self.size.width)
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
        loaded = loaded_instructions_line(runtime)
        if loaded:
            await self.conversation.add(Entry(kind="notice", text=loaded))
        status.session_id = runtime.session_id
        status.mode = runtime.mode.value
        follow(self, runtime)  # background status arrives as BackgroundStatusChanged
        self.watch_memory(runtime.memory)
        status.context_window = runtime.context_window if self.settings.has_endpoint else 0
        last = runtime.agent.last_usage if runtime.agent else None
        # No answer since the latest compaction: the size that compaction left is the best figure.
        status.used_tokens = (last.prompt_tokens + last.completion_tokens) if last else runtime.resumed_tokens
        self.gauge.pct = self.settings.compaction.pct
        self.gauge.origin = self.settings.compaction.pct_source
        self.query_one(ContextMap).pct = self.settings.compaction.pct
        self.query_one(ContextMap).origin = self.settings.compaction.pct_source
        source = "reported" if last else ("estimate" if runtime.resumed_tokens else "")
        self.gauge.set_usage(status.used_tokens, status.context_window, source=source)
        self.refresh_map_estimate(runtime)
        status.state = "idle"
        if runtime.assembler.counter.can_be_exact:
            self._load_exact_counts(runtime)
        self._start_hooks(runtime, "resume" if (resume or continue_latest) else "startup")
        self.start_mcp(runtime)
        if resume or continue_latest:
            self.recap_after_break(runtime)
        if self._watch:
            self._watch_skills(runtime.skills)
        self._follow_skill_commands(runtime)

    def _follow_skill_commands(self, runtime: Runtime) -> None:
        """Every skill a person may run is a /command; the list follows skills added or disabled."""
        from app.context.skills import SkillStatus

        runnable = (SkillStatus.AVAILABLE, SkillStatus.USER_ONLY, SkillStatus.WAITING)

        def refresh() -> None:
            entries = [e for e in runtime.skills.skills if e.skill is not None and e.status in runnable]
            self.prompt.extra_commands = skill_commands((e.skill.name, e.skill.description) for e in entries if e.skill)

        refresh()
        self._refresh_skill_commands = refresh

    def on_background_status_changed(self, message: BackgroundStatusChanged) -> None:
        """The status line, the skill commands and draft news follow background work; open panels are told."""
        runtime = self.runtime
        if runtime is None or message.runtime is not runtime:
            return  # a session left behind: its news is not about this one
        source = message.status.source
        if source == MEMORY_WORK:
            self._show_memory_activity(runtime.memory)
        elif source == SKILLS_ON_DISK:
            self._refresh_skill_commands()
        elif source == SKILL_DRAFTS:
            self._tell_draft_outcome(runtime.drafter)
        forward_to_screens(self, message)

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

    def on_prompt_input_mention_typed(self, message: PromptInput.MentionTyped) -> None:
        hint = self.query_one("#command-hint", Static)
        prompt = self.prompt
        self._update_pending_mentions()
        if message.query is None:
            prompt.mention_candidates = []
            return
        if self._project_files is None:
            self._list_project_files()
            return
        from app.context.mentions import rank_paths

        prompt.mention_candidates = rank_paths(message.query, self._project_files)
        hint.display = True
        if prompt.mention_candidates:
            shown = "  ".join(f"[b]@{escape(p)}[/b]" for p in prompt.mention_candidates[:6])
            hint.update(Content.from_markup(shown + "   [$text-muted](tab completes)[/]"))
        else:
            hint.update(Content.from_markup(f"[$text-muted]No file of this project matches '{escape(message.query)}'.[/]"))

    @work(exclusive=True, group="project-files", exit_on_error=False)
    async def _list_project_files(self) -> None:
        from app.context.mentions import project_files

        self._project_files = await asyncio.to_thread(project_files, self.paths.project_root)
        mention = self.prompt.mention_at_cursor()
        if mention is not None:  # the @ that started the listing is still being typed: offer the files now
            self.prompt.post_message(PromptInput.MentionTyped(mention.path))

    def _update_pending_mentions(self) -> None:
        """The gauge counts what the prompt's @files would add, before anything is sent."""
        text = self.prompt.text
        if "@" not in text:
            self.gauge.pending = 0
            return
        from app.context.mentions import find_mentions

        root = self.paths.project_root
        total = 0
        for mention in {m.path for m in find_mentions(text)}:
            try:
                path = (root / mention).resolve()
                if path.is_file() and (path == root or root.resolve() in path.parents):
                    total += path.stat().st_size
            except (OSError, ValueError):
                continue
        self.gauge.pending = total // 4  # the same bytes/4 estimate the gauge uses before a count

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        parsed = parse_command(text, self.prompt.extra_commands)
        if parsed is not None and parsed.command is None and self.is_mcp_prompt(text):
            parsed = None  # an MCP server's prompt: sent as a turn (its text replaces the command)
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

    def busy(self) -> bool:
        """Whether a turn is running (for the controllers)."""
        return self._busy()

    # -- a turn -------------------------------------------------------------------------------

    def action_run_skill(self, name: str, args: str = "") -> None:
        """``/review focus on tests``: the skill's instructions are this turn's message."""
        runtime = self.runtime
        if runtime is None or runtime.agent is None:
            from app.runtime import NO_ENDPOINT_MESSAGE

            self.notify(NO_ENDPOINT_MESSAGE if runtime else "Still starting up; try again in a moment.", severity="warning")
            return
        if self._busy():
            self.notify("A turn is running; wait for it or press Esc to cancel it.", severity="warning")
            return
        from app.context.skills import SKILL_TOOL_NAME, SkillTool
        from app.context.skills.tool import run_for_person
        from app.core.tools.errors import ToolError

        tool = runtime.registry.get(SKILL_TOOL_NAME)
        if not isinstance(tool, SkillTool):
            self.notify("Skills are not available in this session.", severity="warning")
            return
        try:
            invocation = run_for_person(tool, name, args.strip() or None)
        except ToolError as exc:
            self.notify(str(exc), severity="warning", timeout=8)
            return
        shown = f"/{name} {args.strip()}".rstrip()
        self._run_turn(invocation.content, shown=shown)

    @work(exclusive=False, group="turn", exit_on_error=False)
    async def _run_turn(self, prompt: str, shown: str | None = None) -> None:
        assert self.runtime is not None and self.runtime.agent is not None
        agent = self.runtime.agent
        conversation = self.conversation
        self.gauge.pending = 0
        problems: list[str] = []
        attached = ""
        if shown is None and "@" in prompt:
            from app.context.mentions import attach_mentions

            mentioned = await asyncio.to_thread(attach_mentions, prompt, self.paths.project_root)
            shown, prompt, problems = prompt, mentioned.message, mentioned.problems
            if mentioned.attachments:
                names = ", ".join(f"@{a.path}" for a in mentioned.attachments)
                attached = f"Attached {names} ({mentioned.attached_chars:,} characters)."
        await conversation.add(Entry(kind="user", text=shown or prompt))
        for problem in problems:
            await conversation.add(Entry(kind="notice", text=f"Not attached: {problem}"))
        if attached:
            await conversation.add(Entry(kind="notice", text=attached))
        expanded = await self.expand_mcp(prompt)  # an MCP server's prompt, @server:uri resources
        if expanded is None:
            self.status.state = "idle"
            return
        await self._follow_turn(agent.run(expanded))

    async def _follow_turn(self, events: AsyncIterator[Event]) -> None:
        """Show a turn's events as they come; remember whether it failed (ctrl+y then retries it)."""
        conversation = self.conversation
        conversation.scroll_end(animate=False)
        conversation.anchor()
        self.status.state = "thinking…"
        self.status.turn_started = time.monotonic()
        handler = TurnView(self, conversation)
        self.dismiss_suggestion()
        self._failed_turn = False
        last = ""
        try:
            async for event in events:
                await handler.handle(event)
                last = event.kind
        finally:
            self.status.turn_started = None
        self._failed_turn = last == "turn_failed"
        if last == "turn_finished":
            self.after_answer()

    def can_retry(self) -> bool:
        agent = self.runtime.agent if self.runtime else None
        return bool(self._failed_turn and agent is not None and not agent.busy and agent.can_resend())

    def action_retry_turn(self) -> None:
        if not self.can_retry():
            return
        self._retry_turn()

    @work(exclusive=False, group="turn", exit_on_error=False)
    async def _retry_turn(self) -> None:
        assert self.runtime is not None and self.runtime.agent is not None
        await self.conversation.add(Entry(kind="notice", text="Retrying: the same request goes to the model again."))
        await self._follow_turn(self.runtime.agent.resend())

    def ask_approval(self, event: ApprovalNeeded, entry: Entry | None) -> None:
        future = event.future
        if future is None:
            return
        self.status.state = "waiting for approval"
        from app.context.skills.grants import GRANT_REFUSED

        note = event.reason.split(f"; {GRANT_REFUSED}: ", 1)[1] if f"; {GRANT_REFUSED}: " in event.reason else ""
        screen = ApprovalScreen(
            tool_name=event.call.name,
            summary=event.summary,
            detail=event.detail,
            tool_kind=event.tool_kind,
            grant_note=note,
            always=event.always,
        )
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

    def on_resize(self, event: events.Resize) -> None:
        self.follow_width(event.size.width)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in CONVERSATION_ACTIONS and isinstance(self.screen, ModalScreen):
            return False
        if action == "retry_turn":
            return self.can_retry()  # otherwise the same key copies the last answer
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

    def action_cycle_approval_mode(self) -> None:
        self.modes.cycle()

    def action_approval_mode(self, argument: str = "") -> None:
        self.modes.command(argument)

    @work(exclusive=True, group="model-switch", exit_on_error=False)
    async def action_switch_model(self, argument: str = "") -> None:
        await self.modes.choose(argument)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.key_plan.keymap))

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
        for command in super().get_system_commands(screen):
            if command.title != "Screenshot":  # Textual's saves to ~/Downloads, which a server may not have
                yield command
        yield SystemCommand("Screenshot", f"Save an SVG of the screen in {self._screenshot_dir()}", self.action_save_screenshot)
        yield SystemCommand("Help: keys and commands", "Every key and /command", self.action_help)
        yield SystemCommand("Sessions: resume an earlier session", "Newest first, with the first prompt", self.action_sessions)
        yield SystemCommand("Sessions: start a new session", "The current one stays recorded", self.action_new_session)
        yield SystemCommand("Conversation: expand or collapse tool output", "ctrl+o", self.action_toggle_tools)
        yield SystemCommand("Conversation: copy the last answer", "To the clipboard", self.action_copy_last)
        yield SystemCommand("Turn: cancel the running turn", "esc", self.action_cancel_turn)
        yield SystemCommand("Approval mode: cycle default, auto-edit, plan, yolo", "shift+tab", self.action_cycle_approval_mode)
        # Every /command and every skill, so the palette finds what the / menu finds.
        from app.tui.commands import COMMANDS

        for command in (*COMMANDS, *self.prompt.extra_commands):
            yield SystemCommand(f"/{command.name}", command.description, self._palette_runner(command))

    def _palette_runner(self, command: SlashCommand) -> Callable[[], object]:
        """A command without arguments runs at once; one that takes them waits in the prompt for them."""

        def run() -> None:
            if command.takes_argument:
                self.prompt.load_text(f"/{command.name} ")
                self.prompt.move_cursor(self.prompt.document.end)
                self.prompt.focus()
            else:
                self.run_action(command.action_call(""))

        return run

    def _screenshot_dir(self) -> Path:
        return self.paths.data_dir / "screenshots"

    def action_save_screenshot(self) -> None:
        directory = self._screenshot_dir()
        try:
            ensure_private_dir(directory)
            path = self.save_screenshot(path=str(directory))
        except OSError as exc:
            self.notify(f"Could not save the screenshot in {directory}: {exc}", severity="error", timeout=8)
            return
        self.notify(f"Saved the screenshot to {path}.")

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
