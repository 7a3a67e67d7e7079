"""What the app does about the context: the live map panel, /context reports, /memory and /init.

A mixin of the App, kept apart so app.py stays about the conversation.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work

from app.tui.guards import STARTING_UP, idle_model
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.text_view import TextScreen
from app.tui.widgets.context_map import ContextMap
from app.core.tools.text import plural
from app.tui.widgets.status import format_tokens

if TYPE_CHECKING:
    from app.context.report import ContextReport
    from app.runtime import Runtime

# The side panel opens by itself on terminals at least this wide.
AUTO_SHOW_MAP_WIDTH = 150
CONTEXT_MODES = ("list", "detail", "map", "json")
# A cut instruction file's row in /context (and the line that sums them up) is shown in the warning colour.
CUT_FILE_LINE = r"^  \S.* TRUNCATED |^  ⚠ \d+ file\(s\) truncated"
UNKNOWN_MODE = "Unknown /context mode. Use: /context, /context list, /context detail, /context map, or /context json"


class ContextActions:
    runtime: Runtime | None
    # The person's own choice of showing the map (F2, /map) wins over the width rule until the terminal
    # gets narrower than ui.map_collapse_width.
    _map_chosen: bool | None = None

    # -- the map panel ---------------------------------------------------------------------------

    def follow_width(self, width: int) -> None:
        """The map follows the terminal: shown by itself on wide ones, collapsed below ui.map_collapse_width."""
        collapse = self.settings.ui.map_collapse_width  # type: ignore[attr-defined]
        if width < collapse:
            self._map_chosen = None
            if not self.context_map.has_focus:
                self._show_side(False)
        elif self._map_chosen is None:
            self._show_side(width >= AUTO_SHOW_MAP_WIDTH)

    @work(exclusive=True, group="map-estimate", exit_on_error=False)
    async def refresh_map_estimate(self, runtime: Runtime) -> None:
        """After a new session, a resume or a compaction the map shows that context, not the one before."""
        history = list(runtime.agent.history if runtime.agent else runtime.resumed_messages)
        if not history:
            self.context_map.clear()
            return
        try:
            request = await asyncio.to_thread(runtime.assembler.assemble, history, runtime.tools.schemas())
        except Exception:  # a broken system.md is reported where the report is asked for
            return
        if self.runtime is not runtime:
            return  # another session opened meanwhile
        last = runtime.agent.last_usage if runtime.agent else None
        self.context_map.show_request(request, reported=last.prompt_tokens if last and last.prompt_tokens else None)
        self.context_map.set_cached(last.cached_tokens if last else 0)

    @property
    def context_map(self) -> ContextMap:
        return self.query_one("#context-map", ContextMap)  # type: ignore[attr-defined]

    def _show_side(self, visible: bool) -> None:
        self.query_one("#side").display = visible  # type: ignore[attr-defined]

    def action_toggle_context_map(self) -> None:
        side = self.query_one("#side")  # type: ignore[attr-defined]
        self._map_chosen = not side.display
        self._show_side(not side.display)
        if not side.display:
            self.prompt.focus()  # type: ignore[attr-defined]

    def action_focus_context_map(self) -> None:
        """F2: open the map and move into it; from inside it, close it and go back to the prompt."""
        side = self.query_one("#side")  # type: ignore[attr-defined]
        context_map = self.context_map
        if side.display and context_map.has_focus:
            self._map_chosen = False
            self._show_side(False)
            self.prompt.focus()  # type: ignore[attr-defined]
            return
        self._map_chosen = True
        self._show_side(True)
        context_map.focus()

    def on_context_map_left(self, message: ContextMap.Left) -> None:
        self.prompt.focus()  # type: ignore[attr-defined]

    def on_context_map_opened(self, message: ContextMap.Opened) -> None:
        block = message.block
        sources = ", ".join(sorted({p.source for p in block.parts if p.kind != "separator"}))[:200]
        subtitle = f"{block.group} · {format_tokens(block.tokens)} tokens · {sources}"
        self.push_screen(TextScreen(block.name, block.text, subtitle=subtitle))  # type: ignore[attr-defined]

    @work(thread=True, group="tokenizer", exit_on_error=False)
    def _load_exact_counts(self, runtime: Runtime) -> None:
        """Qwen models get exact counts once their vocabulary is loaded (a fraction of a second)."""
        if runtime.assembler.counter.load():
            runtime.assembler.recount()

    # -- /context ----------------------------------------------------------------------------------

    def current_report(self) -> ContextReport | None:
        """The last request sent (``run``), else one assembled now from the session so far (``estimate``)."""
        runtime = self.runtime
        if runtime is None:
            return None
        assembler = runtime.assembler
        if assembler.last_request is not None:
            return assembler.report(assembler.last_request, source="run", usage=assembler.last_usage)
        history = runtime.agent.history if runtime.agent else runtime.resumed_messages
        try:
            request = assembler.assemble(list(history), runtime.tools.schemas())
        except Exception as exc:  # a missing system.md: say so instead of a report
            self.notify(str(exc), severity="error")  # type: ignore[attr-defined]
            return None
        return assembler.report(request, source="estimate")

    def action_context_report(self, mode: str = "") -> None:
        mode = (mode or "list").strip().lower()
        mode = {"show": "list", "-d": "detail", "deep": "detail"}.get(mode, mode)
        if mode not in CONTEXT_MODES:
            self.notify(UNKNOWN_MODE, severity="warning")  # type: ignore[attr-defined]
            return
        report = self.current_report()
        if report is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        from app.context.report import RENDERERS

        title = {"list": "Context", "detail": "Context (detail)", "map": "Context map", "json": "Context (json)"}[mode]
        highlight = CUT_FILE_LINE if mode in ("list", "detail") else None
        text = RENDERERS[mode](report)
        if mode in ("list", "detail"):
            from app.context.prompt_cache import cache_lines

            agent = self.runtime.agent if self.runtime else None
            text += "\n\n" + "\n".join(cache_lines(agent.last_usage if agent else None, agent.session_usage if agent else None))
        self.push_screen(TextScreen(title, text, highlight=highlight))  # type: ignore[attr-defined]

    # -- /memory -----------------------------------------------------------------------------------

    async def action_memory_command(self, argument: str = "") -> None:
        action = argument.strip().lower()
        if not action:
            self.action_memory_panel()  # type: ignore[attr-defined]
        elif action == "show":
            self._show_instructions()
        elif action == "refresh":
            await self._refresh_instructions()
        else:
            self.notify("Usage: /memory show | /memory refresh", severity="warning")  # type: ignore[attr-defined]

    def _show_instructions(self) -> None:
        if self.runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        assembler = self.runtime.assembler
        text = assembler.instructions_text()
        files = [r for r in assembler.instruction_rows() if r.status != "MISSING"]
        tokens = sum(r.tokens for r in files)
        subtitle = f"{plural(len(files), 'file')} · {format_tokens(tokens)} tokens"
        body = text or "No instruction files found. Create QWEN.md or AGENTS.md in the project (or /init)."
        self.push_screen(TextScreen("Instruction files, as injected", body, subtitle=subtitle))  # type: ignore[attr-defined]

    async def _refresh_instructions(self) -> None:
        if self.runtime is None:
            self.notify(STARTING_UP, severity="warning")  # type: ignore[attr-defined]
            return
        assembler = self.runtime.assembler
        await asyncio.to_thread(assembler.refresh)
        files = [r for r in assembler.instruction_rows() if r.status != "MISSING"]
        self.notify(  # type: ignore[attr-defined]
            f"Re-read {plural(len(files), 'instruction file')}, {format_tokens(sum(r.tokens for r in files))} tokens. The next request uses them."
        )
        for problem in assembler.problems:
            self.notify(problem, severity="warning", timeout=8)  # type: ignore[attr-defined]

    # -- /init ---------------------------------------------------------------------------------------

    def action_init_context_file(self) -> None:
        runtime = idle_model(self, "/init")
        if runtime is None:
            return
        from app.context.instructions.names import current_context_filename

        name = current_context_filename(runtime.settings.context.file_name)
        target = runtime.paths.project_root / name
        try:
            existing = target.read_text(encoding="utf-8", errors="replace") if target.is_file() else ""
        except OSError:
            existing = ""
        if existing.strip():
            self._confirm_init(name, len(existing))
            return
        self._start_init(name)

    @work(group="init", exit_on_error=False)
    async def _confirm_init(self, name: str, size: int) -> None:
        question = f"{name} already exists ({size:,} characters). Write a new one over it?"
        detail = "The model reads the repository and proposes the new file; writing it still asks for your approval."
        if await self.push_screen_wait(ConfirmScreen(question, detail)):  # type: ignore[attr-defined]
            self._start_init(name)

    def _start_init(self, name: str) -> None:
        from app.context.prompt.base import template

        prompt = template("init").replace("$filename", name)
        self._run_turn(prompt)  # type: ignore[attr-defined]
