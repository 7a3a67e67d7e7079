"""The Textual application: one conversation screen, modals for approval, help, sessions and first run."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, ComposeResult, SystemCommand
from textual.notifications import SeverityLevel
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from app.config import Settings
from app.paths import Paths
from app.tui import prompt_store
from app.core.events import MEMORY_WORK, SKILL_DRAFTS, SKILLS_ON_DISK
from app.tui.background_status import BackgroundStatusChanged, follow, forward_to_screens
from app.tui.commands import parse_command
from app.tui.controllers.approvals import ApprovalController
from app.tui.controllers.compaction import CompactionController
from app.tui.controllers.context import ContextController
from app.tui.controllers.exit_signals import ExitSignalController
from app.tui.controllers.hooks import HooksController
from app.tui.controllers.mcp import McpController
from app.tui.controllers.memory import MemoryController
from app.tui.controllers.mentions import MentionController
from app.tui.controllers.modes import ModeController
from app.tui.controllers.rewind import RewindController
from app.tui.controllers.sessions import SessionController
from app.tui.controllers.skills import SkillsController
from app.tui.controllers.suggestions import SuggestionController
from app.tui.controllers.trust import TrustController
from app.tui.controllers.turn import NEEDS_IDLE, TurnController
from app.tui.controllers.view_edits import ViewEditController
from app.tui.keys import GLOBAL_KEYS, bindings, make_priority, plan_keymap
from app.tui.map_panel import MapPanel
from app.tui.messages import (
    GaugeFollowsMap,
    MapChanged,
    MapReported,
    MapStreaming,
    ModelSwitched,
    PendingChanged,
    SessionOpened,
    StatusChanged,
    UsageChanged,
)
from app.tui.palette import app_entries
from app.tui.screens.first_run import FirstRunScreen
from app.tui.screens.help import HelpScreen
from app.tui.startup import StartupKeeper, driver_class_for
from app.tui.turn_view import TurnView
from app.tui.widgets.context_map import ContextMap
from app.tui.widgets.conversation import Conversation
from app.tui.widgets.gauge import BudgetGauge
from app.tui.widgets.prompt import PromptInput
from app.tui.widgets.status import StatusLine

if TYPE_CHECKING:
    from app.runtime import Runtime
    from app.tui.frame_cache import FirstFrame
    from app.tui.screens.skills import SkillsScreen

QUIT_WINDOW_SECONDS = 2.0
# On quit, background memory work and a title query get this long to finish.
EXIT_DRAIN_SECONDS = 5.0
# Priority keys reach the app under a modal too; these act on the screen behind it, so a
# modal keeps them (e.g. pageup scrolls the help text, shift+tab moves focus in a dialog).
CONVERSATION_ACTIONS = frozenset({"load_earlier", "scroll_conversation", "cycle_approval_mode"})


def build_runtime(*args, **kwargs):  # type: ignore[no-untyped-def]
    """app.runtime imports every context package: imported in the worker thread, after the first frame.
    (Looked up when the app is made, so a test may put a slower one in its place.)"""
    from app.runtime import build_runtime as build

    return build(*args, **kwargs)


def style_path(name: str) -> Path:
    from app.shipped import STYLES, shipped_file

    return shipped_file(STYLES, name)


class AgentctxApp(App[int]):
    """The conversation screen and the composition of the controllers that act for it.

    Each /command and key lands in an ``action_*`` here that hands it to its controller
    (``controllers/``); the controllers reach back only through ``host.TuiHost`` and post the
    messages of ``messages.py``, which the ``on_*`` handlers below apply to the widgets.
    """

    CSS_PATH = [style_path("app.tcss")]  # each screen brings its own (screens/<name>.tcss)
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
        first_frame: FirstFrame | None = None,
    ) -> None:
        super().__init__(driver_class=driver_class_for(first_frame))  # a replayed first frame's, or Textual's own
        self.startup = StartupKeeper(self, first_frame, prompt_text=lambda: self.prompt.text)
        self.settings = settings
        self.paths = paths
        self.key_plan = plan_keymap(settings.keymap)
        make_priority(self._bindings, self.key_plan.priority_ids)
        self.runtime: Runtime | None = None
        self._resume = resume
        self._continue = continue_latest
        self._warm_up = warm_up
        # Watching skill dirs is a background task; tests of other things leave it off.
        self._watch = warm_up
        self._last_ctrl_c = 0.0
        self.map_panel: MapPanel | None = None  # once the widgets are there
        # The controllers, wired to each other here and nowhere else.
        self.modes = ModeController(self)
        self.approvals = ApprovalController(self)
        self.mcp = McpController(self)
        self.mentions = MentionController(self)
        self.suggestions = SuggestionController(self, run_turn=self._turn, new_view=self.new_turn_view)
        self.turns = TurnController(self, new_view=self.new_turn_view, follow_ups=self.suggestions, expand=self.mcp.expand)
        self.memory = MemoryController(self, run_turn=self._turn)
        self.context = ContextController(self, run_turn=self._turn, memory_panel=self.memory.panel)
        self.compaction = CompactionController(self, new_view=self.new_turn_view, refresh_map=self.context.refresh_map_estimate)
        self.skills = SkillsController(self)
        self.sessions = SessionController(self, build_runtime=build_runtime, on_leave=self.suggestions.dismiss)
        self.trust = TrustController(self, open_session=self.sessions.open)
        self.hooks = HooksController(self, ask_trust_once=self.trust.ask_once, trust_command=self.trust.command)
        self.view_edits = ViewEditController(self)
        self.exit_signals = ExitSignalController(self, save_draft=self._save_draft, exit_app=self.exit)  # SIGTERM, SIGHUP
        self.rewinder = RewindController(
            self,
            refresh_map=self.context.refresh_map_estimate,
            dismiss_suggestion=self.suggestions.dismiss,
            escape_taken=lambda: self.compaction.waiting() or self.suggestions.finishing(),
            keymap=lambda: self.key_plan.keymap,
        )
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
        yield PromptInput(history=prompt_store.load_input_history(self.paths), id="prompt")
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

    @property
    def gauge(self) -> BudgetGauge:
        return self.query_one("#gauge", BudgetGauge)

    @property
    def context_map(self) -> ContextMap:
        return self.query_one("#context-map", ContextMap)

    def new_turn_view(self) -> TurnView:
        return TurnView(self, self.conversation, compaction=self.compaction, approvals=self.approvals)

    def _turn(self, prompt: str, shown: str | None = None) -> None:
        self.turns.run(prompt, shown)

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

    async def on_mount(self) -> None:
        self.exit_signals.install()
        self.query_one("#command-hint").display = False
        side = self.query_one("#side")
        self.map_panel = MapPanel(side, self.context_map, self.prompt, collapse_width=self.settings.ui.map_collapse_width)
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
        self.gauge.opening = self.settings.has_endpoint
        self._restore_draft()
        self.map_panel.follow_width(self.size.width)
        self.prompt.focus()
        self.startup.mounted()
        if not self.settings.has_endpoint:
            self.push_screen(FirstRunScreen(self.paths))
        elif self._warm_up:
            self._import_model_client()
        self.sessions.open(resume=self._resume, continue_latest=self._continue)

    async def on_event(self, event: events.Event) -> None:
        if self.startup.hold(event):
            return
        await super().on_event(event)

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

    def on_session_opened(self, message: SessionOpened) -> None:
        """The rest of a session's opening (the sessions controller built it): the status line, the gauge
        and the map, and what follows the session from now on."""
        runtime = message.runtime
        if runtime is not self.runtime:
            return  # another session opened meanwhile
        status, settings = self.status, self.settings
        status.session_id = runtime.session_id
        status.mode = runtime.mode.value
        follow(self, runtime)  # background status arrives as BackgroundStatusChanged
        self.memory.watch(runtime.memory)
        status.context_window = runtime.context_window if settings.has_endpoint else 0
        last = runtime.agent.last_usage if runtime.agent else None
        # No answer since the latest compaction: the size that compaction left is the best figure.
        status.used_tokens = (last.prompt_tokens + last.completion_tokens) if last else runtime.resumed_tokens
        self.gauge.pct = self.context_map.pct = settings.compaction.pct
        self.gauge.origin = self.context_map.origin = settings.compaction.pct_source
        source = "reported" if last else ("estimate" if runtime.resumed_tokens else "")
        self.gauge.set_usage(status.used_tokens, status.context_window, source=source)
        self.context.refresh_map_estimate(runtime)
        status.state = "idle"
        if runtime.assembler.counter.can_be_exact:
            self.context.load_exact_counts(runtime)
        self.hooks.start(runtime, "resume" if message.resumed else "startup")
        self.mcp.start(runtime)
        if message.resumed:
            self.sessions.recap_after_break(runtime)
        if self._watch:
            self.skills.watch_skills(runtime.skills)
        self.skills.follow_commands(runtime)

    def on_background_status_changed(self, message: BackgroundStatusChanged) -> None:
        """The status line, the skill commands and draft news follow background work; open panels are told."""
        runtime = self.runtime
        if runtime is None or message.runtime is not runtime:
            return  # a session left behind: its news is not about this one
        source = message.status.source
        if source == MEMORY_WORK:
            self.memory.watch(runtime.memory)
        elif source == SKILLS_ON_DISK:
            self.skills.skills_changed()
        elif source == SKILL_DRAFTS:
            self.skills.draft_finished(runtime.drafter)
        forward_to_screens(self, message)

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
        parsed = parse_command(text, self.prompt.extra_commands)
        if parsed is not None and parsed.command is None and self.mcp.is_prompt(text):
            parsed = None  # an MCP server's prompt: sent as a turn (its text replaces the command)
        if parsed is not None:
            if parsed.command is None:
                self.notify(f"Unknown command /{parsed.word}. Type / to see the commands.", severity="warning")
                return
            self._clear_prompt(text)
            self.sessions.record_command(text.strip())
            await self.run_action(parsed.command.action_call(parsed.argument))
            return
        if self.runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")
            return
        if self.runtime.agent is None:
            from app.runtime import NO_ENDPOINT_MESSAGE

            self.notify(NO_ENDPOINT_MESSAGE, severity="error", timeout=10)
            return  # the text stays in the prompt
        if self.busy():
            self.notify(NEEDS_IDLE, severity="warning")
            return
        self._clear_prompt(text)
        self.turns.run(text)

    def _clear_prompt(self, text: str) -> None:
        try:
            prompt_store.append_input_history(self.paths, text)
        except OSError as exc:
            self.notify(f"Could not save the prompt history: {exc}", severity="warning")
        self.prompt.load_text("")

    def busy(self) -> bool:
        """Whether a turn is running."""
        return bool(self.runtime and self.runtime.agent and self.runtime.agent.busy)

    # -- messages up: the controllers' news, applied to the widgets ------------------------------

    def on_status_changed(self, message: StatusChanged) -> None:
        status, changes = self.status, message.changes()
        if message.if_state is not None and status.state != message.if_state:
            changes.pop("state", None)  # someone else's state since: leave it
        for name, value in changes.items():
            setattr(status, name, value)

    def on_usage_changed(self, message: UsageChanged) -> None:
        self.gauge.set_usage(message.tokens, message.window, source=message.source)

    def on_pending_changed(self, message: PendingChanged) -> None:
        self.gauge.pending = message.tokens

    def on_model_switched(self, message: ModelSwitched) -> None:
        status = self.status
        status.model, status.context_window = message.name, message.window
        self.gauge.set_usage(status.used_tokens, message.window)

    def on_map_changed(self, message: MapChanged) -> None:
        if message.request is None:
            self.context_map.clear()
        else:
            self.context_map.show_request(message.request, reported=message.reported)
            if message.sent:
                self.gauge.show_recall(message.request)

    def on_map_streaming(self, message: MapStreaming) -> None:
        self.context_map.set_streaming(message.tokens)

    def on_map_reported(self, message: MapReported) -> None:
        self.context_map.set_reported(message.tokens)
        self.context_map.set_cached(message.cached)

    def show_hint(self, content: Content | None) -> None:
        hint = self.query_one("#command-hint", Static)
        hint.display = content is not None
        if content is not None:
            hint.update(content)

    # -- what the widgets and screens ask for -------------------------------------------------------

    def on_prompt_input_mention_typed(self, message: PromptInput.MentionTyped) -> None:
        self.mentions.typed(message)

    def on_prompt_input_typed(self, message: PromptInput.Typed) -> None:
        self.suggestions.dismiss()

    def on_prompt_input_accept_suggestion(self, message: PromptInput.AcceptSuggestion) -> None:
        self.suggestions.accept()

    def on_context_map_left(self, message: ContextMap.Left) -> None:
        self.prompt.focus()

    def on_context_map_opened(self, message: ContextMap.Opened) -> None:
        self.context.open_block(message.block)

    def on_context_map_edit_asked(self, message: ContextMap.EditAsked) -> None:
        self.view_edits.asked(message)

    def on_skills_screen_toggled(self, message: SkillsScreen.Toggled) -> None:
        self.skills.toggled(message)

    def on_skills_screen_use(self, message: SkillsScreen.Use) -> None:
        self.skills.use(message)

    # -- actions: each key and /command, handed to its controller -----------------------------------

    def action_sessions(self) -> None:
        self.sessions.picker()

    def action_new_session(self) -> None:
        self.sessions.new_session()

    def action_rename_session(self, text: str = "") -> None:
        self.sessions.rename(text)

    def action_recap(self) -> None:
        self.sessions.recap()

    def action_run_skill(self, name: str, args: str = "") -> None:
        self.turns.run_skill(name, args)

    def action_retry_turn(self) -> None:
        self.turns.retry()

    def action_compact_now(self, focus: str = "") -> None:
        self.compaction.compact_now(focus)

    async def action_compress_fast(self) -> None:
        await self.compaction.compress_fast()

    def action_toggle_context_map(self) -> None:
        if self.map_panel is not None:
            self.map_panel.toggle()

    def action_focus_context_map(self) -> None:
        if self.map_panel is not None:
            self.map_panel.focus_map()

    def action_context_report(self, mode: str = "") -> None:
        self.context.context_report(mode)

    async def action_memory_command(self, argument: str = "") -> None:
        await self.context.memory_command(argument)

    def action_init_context_file(self) -> None:
        self.context.init_context_file()

    def action_memory_panel(self) -> None:
        self.memory.panel()

    def action_remember(self, text: str = "") -> None:
        self.memory.remember(text)

    def action_forget(self, text: str = "") -> None:
        self.memory.forget(text)

    def action_dream(self) -> None:
        self.memory.dream()

    def action_skills(self) -> None:
        self.skills.panel()

    def action_hooks_command(self, argument: str = "") -> None:
        self.hooks.command(argument)

    def action_trust_command(self) -> None:
        self.trust.command()

    def action_permissions_command(self) -> None:
        self.trust.permissions()

    def action_mcp_command(self, argument: str = "") -> None:
        self.mcp.command(argument)

    # -- the app's own actions ---------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        if self.map_panel is not None:
            self.map_panel.follow_width(event.size.width)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in CONVERSATION_ACTIONS and isinstance(self.screen, ModalScreen):
            return False
        if action == "retry_turn":
            return self.turns.can_retry()  # otherwise the same key copies the last answer
        if action == "rewind_escape":
            return self.rewinder.escape_is_free()
        return True

    def action_rewind_escape(self) -> None:
        self.rewinder.escape()

    def action_rewind(self) -> None:
        self.rewinder.open()

    def on_gauge_follows_map(self, message: GaugeFollowsMap) -> None:
        """The gauge after the view changed by hand (a rewind): the map's estimate of the next request."""
        used = self.context_map.used
        self.status.used_tokens = used
        self.gauge.set_usage(used, self.status.context_window, source="estimate")

    def action_cancel_turn(self) -> None:
        if self.compaction.skip_pending() or self.suggestions.stop_finishing():
            return
        if self.runtime and self.runtime.agent and self.runtime.agent.cancel():
            self.status.state = "cancelling…"
            return
        self.rewinder.escape_unused()  # nothing to cancel: Esc Esc rewinds

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
        self.suggestions.drop_speculation()  # its shadow copy goes with it
        if self.runtime is not None:
            await self.runtime.aclose(drain_seconds=EXIT_DRAIN_SECONDS)
        self.exit_signals.signals.uninstall()

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

    async def action_scroll_conversation(self, direction: int) -> None:
        await self.conversation.page(direction)

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
        yield from app_entries(self, self.paths.data_dir / "screenshots")

    # -- what survives a restart ----------------------------------------------------------------

    def _save_draft(self) -> None:
        prompt_store.save_prompt(self.paths, self)

    def _restore_draft(self) -> None:
        prompt_store.restore_prompt(self.paths, self.prompt)

