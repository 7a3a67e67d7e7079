"""What the app does about the context: the map's estimate between turns, a map block opened,
/context reports, /memory show and refresh, and /init. The map itself hears of it by message."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from app.core.tools.text import plural
from app.tui.guards import STARTING_UP, idle_model
from app.tui.messages import MapChanged, MapReported
from app.tui.screens.confirm import ConfirmScreen
from app.tui.screens.text_view import TextScreen
from app.tui.widgets.status import format_tokens

if TYPE_CHECKING:
    from textual.worker import Worker

    from app.context.report import ContextReport
    from app.runtime import Runtime
    from app.tui.host import TuiHost
    from app.tui.widgets.context_map import MapBlock

CONTEXT_MODES = ("list", "detail", "map", "json")
# A cut instruction file's row in /context (and the line that sums them up) is shown in the warning colour.
CUT_FILE_LINE = r"^  \S.* TRUNCATED |^  ⚠ \d+ file\(s\) truncated"
UNKNOWN_MODE = "Unknown /context mode. Use: /context, /context list, /context detail, /context map, or /context json"


class ContextController:
    def __init__(self, host: TuiHost, *, run_turn: Callable[[str], None], memory_panel: Callable[[], None]) -> None:
        self.host = host
        self._run_turn = run_turn  # /init is a turn
        self._memory_panel = memory_panel  # /memory without a word opens the panel

    # -- the map --------------------------------------------------------------------------------

    def refresh_map_estimate(self, runtime: Runtime) -> Worker[None]:
        """After a new session, a resume or a compaction the map shows that context, not the one before."""
        work = partial(self._refresh_map_estimate, runtime)
        return self.host.run_worker(work, name="refresh_map_estimate", group="map-estimate", exclusive=True, exit_on_error=False)

    async def _refresh_map_estimate(self, runtime: Runtime) -> None:
        history = list(runtime.agent.history if runtime.agent else runtime.resumed_messages)
        if not history:
            self.host.post_message(MapChanged(None))
            return
        # The screen first: assembling a resumed 500 MB history holds the GIL for a second or more, and
        # started at once it halved the pace of the frame that shows the session (0.04 -> 0.15 s at load 5).
        drawn = asyncio.Event()
        self.host.call_after_refresh(drawn.set)
        await drawn.wait()
        try:
            request = await asyncio.to_thread(runtime.assembler.assemble, history, runtime.tools.schemas())
        except Exception:  # a broken system.md is reported where the report is asked for
            return
        if self.host.runtime is not runtime:
            return  # another session opened meanwhile
        last = runtime.agent.last_usage if runtime.agent else None
        reported = last.prompt_tokens if last and last.prompt_tokens else None
        self.host.post_message(MapChanged(request, reported=reported))
        self.host.post_message(MapReported(reported, cached=last.cached_tokens if last else 0))

    def open_block(self, block: MapBlock) -> None:
        """Enter on a block of the map: its text, as sent."""
        sources = ", ".join(sorted({p.source for p in block.parts if p.kind != "separator"}))[:200]
        subtitle = f"{block.group} · {format_tokens(block.tokens)} tokens · {sources}"
        self.host.push_screen(TextScreen(block.name, block.text, subtitle=subtitle))

    def load_exact_counts(self, runtime: Runtime) -> None:
        """Qwen models get exact counts once their vocabulary is loaded (a fraction of a second)."""
        work = partial(self._load_exact_counts, runtime)
        self.host.run_worker(work, name="_load_exact_counts", group="tokenizer", thread=True, exit_on_error=False)

    def _load_exact_counts(self, runtime: Runtime) -> None:
        if runtime.assembler.counter.load():
            runtime.assembler.recount()

    # -- /context ----------------------------------------------------------------------------------

    def current_report(self) -> ContextReport | None:
        """The last request sent (``run``), else one assembled now from the session so far (``estimate``)."""
        runtime = self.host.runtime
        if runtime is None:
            return None
        assembler = runtime.assembler
        if assembler.last_request is not None:
            return assembler.report(assembler.last_request, source="run", usage=assembler.last_usage)
        history = runtime.agent.history if runtime.agent else runtime.resumed_messages
        try:
            request = assembler.assemble(list(history), runtime.tools.schemas())
        except Exception as exc:  # a missing system.md: say so instead of a report
            self.host.notify(str(exc), severity="error")
            return None
        return assembler.report(request, source="estimate")

    def context_report(self, mode: str = "") -> None:
        mode = (mode or "list").strip().lower()
        mode = {"show": "list", "-d": "detail", "deep": "detail"}.get(mode, mode)
        if mode not in CONTEXT_MODES:
            self.host.notify(UNKNOWN_MODE, severity="warning")
            return
        report = self.current_report()
        if report is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        from app.context.report import RENDERERS

        title = {"list": "Context", "detail": "Context (detail)", "map": "Context map", "json": "Context (json)"}[mode]
        highlight = CUT_FILE_LINE if mode in ("list", "detail") else None
        text = RENDERERS[mode](report)
        if mode in ("list", "detail"):
            from app.context.prompt_cache import cache_lines

            agent = self.host.runtime.agent if self.host.runtime else None
            text += "\n\n" + "\n".join(cache_lines(agent.last_usage if agent else None, agent.session_usage if agent else None))
        self.host.push_screen(TextScreen(title, text, highlight=highlight))

    # -- /memory -----------------------------------------------------------------------------------

    async def memory_command(self, argument: str = "") -> None:
        action = argument.strip().lower()
        if not action:
            self._memory_panel()
        elif action == "show":
            self._show_instructions()
        elif action == "refresh":
            await self._refresh_instructions()
        else:
            self.host.notify("Usage: /memory show | /memory refresh", severity="warning")

    def _show_instructions(self) -> None:
        if self.host.runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        assembler = self.host.runtime.assembler
        text = assembler.instructions_text()
        files = [r for r in assembler.instruction_rows() if r.status != "MISSING"]
        tokens = sum(r.tokens for r in files)
        subtitle = f"{plural(len(files), 'file')} · {format_tokens(tokens)} tokens"
        body = text or "No instruction files found. Create QWEN.md or AGENTS.md in the project (or /init)."
        self.host.push_screen(TextScreen("Instruction files, as injected", body, subtitle=subtitle))

    async def _refresh_instructions(self) -> None:
        if self.host.runtime is None:
            self.host.notify(STARTING_UP, severity="warning")
            return
        assembler = self.host.runtime.assembler
        await asyncio.to_thread(assembler.refresh)
        files = [r for r in assembler.instruction_rows() if r.status != "MISSING"]
        self.host.notify(
            f"Re-read {plural(len(files), 'instruction file')}, {format_tokens(sum(r.tokens for r in files))} tokens. The next request uses them."
        )
        for problem in assembler.problems:
            self.host.notify(problem, severity="warning", timeout=8)

    # -- /init ---------------------------------------------------------------------------------------

    def init_context_file(self) -> None:
        runtime = idle_model(self.host, "/init")
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

    def _confirm_init(self, name: str, size: int) -> None:
        self.host.run_worker(partial(self._ask_init, name, size), name="_confirm_init", group="init", exit_on_error=False)

    async def _ask_init(self, name: str, size: int) -> None:
        question = f"{name} already exists ({size:,} characters). Write a new one over it?"
        detail = "The model reads the repository and proposes the new file; writing it still asks for your approval."
        if await self.host.push_screen_wait(ConfirmScreen(question, detail)):
            self._start_init(name)

    def _start_init(self, name: str) -> None:
        from app.context.prompt.base import template

        prompt = template("init").replace("$filename", name)
        self._run_turn(prompt)
