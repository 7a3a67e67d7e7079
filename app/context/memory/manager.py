"""MemoryManager: the one entry point to auto-memory while the app runs.

Recall is prefetched the moment a prompt arrives and only ever polled; extraction
runs after a turn in a forked agent (one at a time, the newest request queued);
dreaming runs behind its gates and a PID lock. Nothing here blocks a request.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from app.context.memory.paths import MemoryScope
from app.context.memory.tasks import TaskState
from app.context.memory.paths import MemoryPaths, is_auto_mem_path, memory_paths
from app.context.memory.prompt import memory_prompt, memory_prompt_and_findings
from app.context.memory.prompt import recall_reminder
from app.core.events import MEMORY_WORK, BackgroundStatus
from app.core.history import Message, ToolCall
from app.core.status import StatusSink, no_status
from app.core.tools.text import plural

# Extraction, dreaming, forgetting and the index rebuild import their modules where they run
# (schedule, forget, index): a headless turn
# uses none of them, and they cost it about 15 ms of imports (`python -X importtime`).
# Recall (the stemmer's word lists, BM25F, the selector) and the store's listing load with the
# first turn that has a memory folder to look in: a session with no memory never imports them.
if TYPE_CHECKING:
    from app.config import MemorySettings
    from app.context.memory.agents import AgentBudget, AgentRun
    from app.context.memory.entry import MemoryEntry
    from app.context.memory.recall_task import Delivery, TurnRecall
    from app.context.memory.store import MemoryStore
    from app.context.memory.forget import ForgetResult, ForgetSelection
    from app.core.llm.provider import Provider
    from app.core.tools.base import Tool, ToolContext
    from app.paths import Paths

log = logging.getLogger(__name__)

# A tool result in the transcript the extraction agent reads is cut to this many characters.
TRANSCRIPT_TOOL_CHARS = 600
MERGED_MARKER = "(merged into "


def render_transcript(messages: Iterable[Message]) -> str:
    """The conversation as plain text for a memory agent: words in full, tool output cut."""
    lines: list[str] = []
    for message in messages:
        if message.role == "user":
            if not message.content.lstrip().startswith("<system-reminder>"):
                lines.append(f"User: {message.content}")
        elif message.role == "assistant":
            if message.content.strip():
                lines.append(f"Assistant: {message.content}")
            lines.extend(f"Assistant called {call.name}({call.arguments})" for call in message.tool_calls)
        elif message.role == "tool":
            output = message.content if len(message.content) <= TRANSCRIPT_TOOL_CHARS else message.content[:TRANSCRIPT_TOOL_CHARS] + " …"
            lines.append(f"Tool result ({message.name}): {output}")
    return "\n\n".join(lines)


class MemoryManager:
    def __init__(
        self,
        paths: Paths,
        *,
        session_id: str,
        settings: MemorySettings,
        provider: Provider | None = None,
        clock: Callable[[], float] = time.time,
        interactive: bool = True,
        status: StatusSink = no_status,
    ) -> None:
        self.paths = paths
        # Headless runs may hold the first request for the selector (bounded); the TUI never does.
        self.interactive = interactive
        self.mem: MemoryPaths = memory_paths(paths)
        self.session_id = session_id
        self.settings = settings
        self.provider = provider
        self.clock = clock
        self.extraction = TaskState("extraction")
        self.dream = TaskState("dream")
        self._recall: TurnRecall | None = None
        self.recalled: list[Delivery] = []  # what recall put into requests this session, newest last
        self._extract_task: asyncio.Task[None] | None = None
        self._queued: list[Message] | None = None
        self._dream_task: asyncio.Task[None] | None = None
        self._main_wrote_memory = False
        self._lock_release_failed = False
        self.publish = status  # told when a background task changes state
        self._notices: list[str] = []
        # A headless run reads its prompt before building the runtime (app/cli/default.py): its
        # first turn was asked by now, so the listings start-up makes from here on serve its recall
        # (scan.latest_listing). An interactive turn is asked when it is submitted.
        self._first_asked_at: int | None = None if interactive else time.monotonic_ns()
        self._told_secrets: set[Path] = set()
        # Optional embedding recall (memory.semantic); its model loads in a background thread, never in a turn.
        # "off", and "auto" in a headless run, are none at all: its module is not even imported.
        mode = getattr(settings, "semantic", "auto")
        self.semantic, notice = None, None
        if not (mode in ("off", False) or (mode == "auto" and not interactive)):
            from app.context.memory.semantic import semantic_from_setting

            self.semantic, notice = semantic_from_setting(mode, interactive=interactive)
        self._notices.extend([notice] if notice and settings.enabled and settings.recall else [])

    @cached_property
    def store(self) -> MemoryStore:
        from app.context.memory.store import MemoryStore

        return MemoryStore(self.mem)

    def _any_memory_folder(self) -> bool:
        """Whether any scope's folder exists: without one there is nothing to list or recall."""
        return any(self.mem.root(scope).is_dir() for scope in (MemoryScope.PROJECT, MemoryScope.USER, MemoryScope.TEAM))

    # -- watching it ------------------------------------------------------------------------------

    def _set(self, task: TaskState, state: str, detail: str = "") -> None:
        task.state, task.detail = state, detail
        if state in ("done", "failed"):
            task.last_run_at = self.clock()
        self._changed()

    def _changed(self) -> None:
        self.publish(BackgroundStatus(source=MEMORY_WORK, state=self.extraction.state))

    @property
    def busy(self) -> bool:
        return any(t is not None and not t.done() for t in (self._extract_task, self._dream_task))

    # -- what the model sees ----------------------------------------------------------------------

    def prompt_section(self) -> str:
        """The auto-memory instructions with each scope's index (session start and /memory refresh).
        A secret in an index is masked, and the person is told once which file holds it."""
        if not self.settings.enabled:
            return ""
        text, found = memory_prompt_and_findings(self.mem)
        if found:
            from app.context.memory.secrets import describe_findings
        for path, findings in found:
            if path not in self._told_secrets:
                self._told_secrets.add(path)
                self._notices.append(
                    f"{path} holds what looks like a secret ({describe_findings(list(findings))}); it was masked "
                    "in the prompt. Remove it from the file (memory indexes are read into every request)."
                )
        return text

    def take_notices(self) -> list[str]:
        """What the person must be told (a secret masked out of an index), each once."""
        notices, self._notices = self._notices, []
        return notices

    def entries(self) -> list[MemoryEntry]:
        return self.store.list_scopes((MemoryScope.PROJECT, MemoryScope.USER, MemoryScope.TEAM))

    def start_recall(self, query: str, recent_tools: Sequence[str] = ()) -> None:
        """Begin selecting memories for this prompt: the local ranking and, when on, the selector."""
        asked_at, self._first_asked_at = self._first_asked_at, None
        carried: list[MemoryEntry] = []
        if self._recall is not None:
            carried = self._recall.leftover()  # a selector that settled after its turn ended
            self._recall.cancel()
            self._recall = None
        if not (self.settings.enabled and self.settings.recall) or not query.strip():
            return
        if not carried and not self._any_memory_folder():
            return  # checked each turn: a memory saved during the session is recalled from the next
        from app.context.memory.recall_task import TurnRecall

        provider = self.provider if self.settings.recall_model else None
        self._recall = TurnRecall(
            self.store, query, provider=provider, recent_tools=recent_tools, timeout=self.settings.recall_timeout, clock=self.clock, carried=carried,
            local_deadline=self.settings.recall_wait_seconds, semantic=self.semantic, asked_at=asked_at,
        )

    async def before_request(self, request_number: int) -> None:
        """Awaited before each request of a turn: the first waits (briefly) for recall to settle."""
        if self._recall is not None:
            try:
                await self._recall.settle(request_number, wait_for_selector=not self.interactive)
            except asyncio.CancelledError:
                raise
            except Exception:  # recall is optional; it never fails a turn
                log.warning("memory recall could not be awaited", exc_info=True)

    def take_recall(self) -> str | None:
        """The reminder for the request about to go out, when recall has something new for it."""
        if self._recall is None:
            return None
        entries = self._recall.take()
        if not entries:
            return None
        delivery = self._recall.delivered[-1]
        self.recalled.append(delivery)
        self._changed()
        return recall_reminder(entries, self.clock(), how=delivery.how)

    # -- hooks into the main agent -------------------------------------------------------------------

    def turn_started(self, prompt: str, history: Sequence[Message]) -> None:
        self._main_wrote_memory = False
        recent = [call.name for m in list(history)[-20:] if m.role == "assistant" for call in m.tool_calls]
        self.start_recall(prompt, recent)

    def tool_ran(self, call: ToolCall, args: dict[str, Any]) -> None:
        from app.context.memory.agents import written_path  # the memory agents' module: with the first tool call

        target = written_path(call.name, args)
        if target is None:
            return
        path = Path(target) if os.path.isabs(target) else self.paths.project_root / target
        if any(is_auto_mem_path(root, path) for root in (self.mem.project_root, self.mem.user_root, self.mem.team_root)):
            self._main_wrote_memory = True

    def turn_ended(self, history: Sequence[Message], *, finished: bool) -> None:
        """After a user turn: extraction (unless the agent saved a memory itself), then the dream gates."""
        if not (self.settings.enabled and finished):
            return
        if self._main_wrote_memory:
            self._set(self.extraction, "skipped", "the agent saved a memory itself this turn")
        elif self.settings.extraction:
            self.schedule_extraction(list(history))
        if self.settings.dream:
            self.check_dream()

    def flush(self, history: Sequence[Message]) -> None:
        """Before a summary replaces the history: get durable facts into memory files first."""
        if self.settings.enabled and self.settings.extraction:
            self.schedule_extraction(list(history))

    # -- extraction -----------------------------------------------------------------------------------

    def schedule_extraction(self, history: list[Message]) -> None:
        if self.provider is None:
            self._set(self.extraction, "skipped", "no model endpoint")
            return
        if self._extract_task is not None and not self._extract_task.done():
            self._queued = history  # a newer request replaces an older queued one
            self._set(self.extraction, "queued", "waiting for the running extraction")
            return
        self._extract_task = asyncio.create_task(self._extraction_loop(history))

    async def _extraction_loop(self, history: list[Message]) -> None:
        while True:
            await self._extract_once(history)
            if self._queued is None:
                return
            history, self._queued = self._queued, None

    async def _extract_once(self, history: list[Message]) -> None:
        from app.context.memory.schedule import cursor_after_run, plan_extraction_start, read_cursor, write_cursor
        from app.context.memory.schedule import read_meta, write_meta
        from app.context.memory.agents import touched_topics_from_file_paths

        now = self.clock()
        plan = plan_extraction_start(read_cursor(self.mem.cursor_file), self.session_id, history, now)
        if plan.skip:
            write_cursor(self.mem.cursor_file, plan.skip_cursor)  # type: ignore[arg-type]
            self._set(self.extraction, "skipped", "nothing new since the last extraction")
            return
        self._set(self.extraction, "running", f"reading {plural(len(history) - plan.start, 'new message')}")
        roots = [self.mem.project_root, self.mem.user_root]
        system = Template(_template("extract")).safe_substitute(
            project_root=str(self.mem.project_root), user_root=str(self.mem.user_root), memory_index=memory_prompt(self.mem) or "(none yet)"
        )
        prompt = "The newest part of the conversation:\n\n" + render_transcript(history[plan.start :])
        from app.context.memory.agents import EXTRACTION_BUDGET

        try:
            run = await self._run_agent(system, prompt, roots, EXTRACTION_BUDGET)
        except asyncio.CancelledError:
            self._set(self.extraction, "failed", "cancelled (the cursor was not moved; it runs again next time)")
            raise
        self._rebuild_indexes((MemoryScope.PROJECT, MemoryScope.USER))
        if run.timed_out:
            # Cut off mid-run: what it saved is whole and indexed, but the cursor and meta.json
            # stay put (a run that did not complete is not a run), so the same part is read again.
            kept = f"; {_memories(len(run.written))} saved before it" if run.written else ""
            self._set(self.extraction, "failed", f"{run.failure}{kept} (the cursor was not moved; it runs again next time)")
            return
        written, tools_ran, failure = run.written, run.tools_ran, run.failure
        topics = touched_topics_from_file_paths(written, roots)
        write_cursor(
            self.mem.cursor_file,
            cursor_after_run(self.session_id, start=plan.start, history_length=len(history), touched_topics=bool(topics), tools_ran=tools_ran, now=self.clock()),
        )
        meta = read_meta(self.mem.meta_file)
        write_meta(
            self.mem.meta_file,
            replace(
                meta,
                last_extraction_at=self.clock(),
                last_extraction_session_id=self.session_id,
                last_extraction_touched_topics=tuple(topics),
                last_extraction_status="updated" if written else "noop",
            ).touched(self.clock()),
        )
        if failure:
            self._set(self.extraction, "failed", failure)
        else:
            self._set(self.extraction, "done", f"saved {_memories(len(written))}" if written else "nothing worth saving")

    async def _run_agent(self, system: str, prompt: str, roots: list[Path], budget: AgentBudget, *, protect_pinned: bool = False) -> AgentRun:
        """Run a memory agent within its budget: its requests, and its minutes over the whole run."""
        assert self.provider is not None
        from app.context.memory.agents import build_memory_agent, run_memory_agent

        agent = build_memory_agent(
            self.provider, system, roots, max_requests=budget.max_requests, time_budget=budget.seconds, protect_pinned=protect_pinned, mem=self.mem
        )
        return await run_memory_agent(agent, prompt, budget.seconds)

    def refresh_indexes(self) -> None:
        """At session start: rebuild an index left stale; one that is already right is not rewritten.

        A memory write and its index rebuild are two steps, and a process killed between
        them (or an edit outside the app) leaves a memory missing from MEMORY.md.
        """
        if self.settings.enabled:
            present = [scope for scope in (MemoryScope.PROJECT, MemoryScope.USER) if self.mem.root(scope).is_dir()]
            self._refresh_indexes(present)
            # With no memory folder there is nothing to recall: no thread importing the stemmer
            # beside a headless turn's own start-up (it held the GIL for about 25 ms of it).
            if self.settings.recall and present:
                # The first turn's recall should not pay for the stemmer's import and the index build
                # inside its 150 ms: do both now, beside start-up, in a daemon thread.
                threading.Thread(target=self._prewarm_recall, name="memory-recall-prewarm", daemon=True).start()

    def _prewarm_recall(self) -> None:
        from app.context.memory.recall import list_recall_candidates, plan_recall

        # The listings refresh_indexes just made, as they were: warming up needs no fresh look at
        # every file (50,000 lstat, ~0.2 s), and the turn's recall lists afresh anyway.
        try:
            plan_recall("warm up", list_recall_candidates(self.store, since=0))
            if self.semantic is not None:
                from app.context.memory.semantic import warm_up

                warm_up(self.semantic, lambda: list_recall_candidates(self.store, since=0))
        except Exception:  # only a head start; the turn's own recall reports real problems
            pass

    def _refresh_indexes(self, scopes: Sequence[MemoryScope]) -> None:
        """At start-up: each index rebuilt unless it is known to be in step (index_check.py)."""
        if not scopes:  # no memory folder yet: the index writer is not even imported
            return
        from app.context.memory.index_check import refresh_index

        for scope in scopes:
            try:
                refresh_index(self.mem, scope)
            except Exception:  # an unusable root: its index stays as it is, the others go on
                continue

    def _rebuild_indexes(self, scopes: Iterable[MemoryScope], removed: Sequence[Path] = ()) -> None:
        scopes = list(scopes)
        if not scopes:  # no memory folder yet: the index writer is not even imported
            return
        from app.context.memory.index import rebuild_index

        for scope in scopes:
            try:
                rebuild_index(self.mem, scope, removed=removed)
            except Exception:  # an unusable team root: its index stays as it is, the others go on
                continue

    # -- dreaming ---------------------------------------------------------------------------------------

    def check_dream(self) -> None:
        from app.context.memory.schedule import DreamGateInput, evaluate_dream_gates
        from app.context.memory.schedule import inspect_lock, remove_lock
        from app.context.memory.schedule import read_meta, write_meta
        from app.context.memory.schedule import count_sessions_since

        if self.provider is None:
            return
        now = self.clock()
        meta = read_meta(self.mem.meta_file)
        lock = inspect_lock(self.mem.lock_file, now)
        gate = DreamGateInput(
            now=now,
            session_id=self.session_id,
            enabled=self.settings.dream,
            last_dream_at=meta.last_dream_at,
            last_dream_session_id=meta.last_dream_session_id,
            last_session_scan_at=meta.last_session_scan_at,
            lock=lock.state,
            lock_release_failed=self._lock_release_failed,
            running=self.busy,
        )
        decision = evaluate_dream_gates(gate, lambda: count_sessions_since(self.mem.chats_dir, meta.last_dream_at, self.session_id))
        if decision.scanned_at is not None:
            write_meta(self.mem.meta_file, replace(meta, last_session_scan_at=decision.scanned_at))
        if not decision.run:
            self._set(self.dream, "skipped", str(decision.reason.value if decision.reason else ""))
            return
        if decision.remove_lock and self._lock_release_failed:
            remove_lock(self.mem.lock_file)  # our own, stuck by a failed release; a stale one is cleared in _dream
        self._dream_task = asyncio.create_task(self._dream())

    def dream_now(self) -> bool:
        """/dream: consolidate now, gates aside (never two at once, never without a model)."""
        if self.provider is None:
            self._set(self.dream, "skipped", "no model endpoint")
            return False
        if self._dream_task is not None and not self._dream_task.done():
            self._set(self.dream, "running", "already consolidating")
            return False
        self._dream_task = asyncio.create_task(self._dream())
        return True

    async def _dream(self) -> None:
        from app.context.memory.schedule import acquire_lock, clear_stale_lock, remove_lock
        from app.context.memory.schedule import read_meta, write_meta

        # /dream skips the gates, which is where a crashed process's lock is otherwise cleared.
        clear_stale_lock(self.mem.lock_file, self.clock())
        if not acquire_lock(self.mem.lock_file):
            self._set(self.dream, "skipped", "another process is consolidating memories")
            return
        from app.context.memory.agents import DREAM_BUDGET

        try:
            self._set(self.dream, "running", "consolidating project memories")
            root = self.mem.project_root
            system = Template(_template("dream")).safe_substitute(project_root=str(root), memory_index=memory_prompt(self.mem) or "(none yet)")
            run = await self._run_agent(system, "Consolidate the project memories now.", [root], DREAM_BUDGET, protect_pinned=True)
            written, failure = run.written, run.failure
            merged_files = self._remove_merged_files()
            merged = len(merged_files)
            self._rebuild_indexes((MemoryScope.PROJECT,), removed=merged_files)
            # A dream cut off by its budget is still recorded, so the gates wait a day before the next try.
            status = "failed" if run.timed_out else "updated" if written else "noop"
            meta = read_meta(self.mem.meta_file)
            write_meta(
                self.mem.meta_file,
                replace(meta, last_dream_at=self.clock(), last_dream_session_id=self.session_id, last_dream_status=status).touched(self.clock()),
            )
            if run.timed_out and written:
                failure = f"{failure}; {plural(len(written), 'file')} changed before it"
            if failure:
                self._set(self.dream, "failed", failure)
            else:
                self._set(self.dream, "done", f"{plural(len(written), 'file')} changed, {merged} merged away" if written else "nothing to change")
        except asyncio.CancelledError:
            self._set(self.dream, "failed", "cancelled")
            raise
        finally:
            self._lock_release_failed = not remove_lock(self.mem.lock_file)

    def _remove_merged_files(self) -> list[Path]:
        """The dream agent cannot delete; a file it reduced to a merge note is removed here."""
        removed: list[Path] = []
        for entry in self.store.list(MemoryScope.PROJECT):
            if entry.body.strip().startswith(MERGED_MARKER) and len(entry.body.strip()) < 300:
                try:
                    self.store.delete(entry.path)
                    removed.append(entry.path)
                except Exception:
                    continue
        return removed

    # -- forgetting ------------------------------------------------------------------------------------

    async def select_forget(self, query: str) -> ForgetSelection:
        """Candidates only: nothing is deleted until the person confirms (see ``forget``)."""
        from app.context.memory.forget import select_forget_candidates

        entries = self.store.list_scopes((MemoryScope.PROJECT, MemoryScope.USER))
        return await select_forget_candidates(query, entries, provider=self.provider)

    def forget(self, targets: Sequence[Any]) -> ForgetResult:
        from app.context.memory.forget import apply_forget

        result = apply_forget(self.store, targets, now=self.clock())
        self._rebuild_indexes((MemoryScope.PROJECT, MemoryScope.USER), removed=result.deleted)
        self._changed()
        return result

    # -- shutting down ---------------------------------------------------------------------------------

    def background_bound(self) -> float:
        """How long the running memory work may still take at most: its agents' wall-clock limits."""
        running = [t for t in (self._extract_task, self._dream_task) if t is not None and not t.done()]
        if not running:
            return 0.0
        from app.context.memory.agents import DREAM_BUDGET, EXTRACTION_BUDGET, STOP_GRACE_SECONDS

        bound = 0.0
        if self._extract_task is not None and not self._extract_task.done():
            # A queued run starts after the running one: two budgets.
            bound += EXTRACTION_BUDGET.seconds * (2 if self._queued is not None else 1) + STOP_GRACE_SECONDS
        if self._dream_task is not None and not self._dream_task.done():
            bound = max(bound, DREAM_BUDGET.seconds + STOP_GRACE_SECONDS)
        return bound

    async def drain(self, timeout: float) -> None:
        """Wait for background work; past the timeout cancel it (writes are atomic, cursors stay put)."""
        tasks = [t for t in (self._extract_task, self._dream_task) if t is not None and not t.done()]
        if self._recall is not None:
            self._recall.cancel()
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=timeout)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=2)

    # -- as a TurnObserver (app.core.protocols): recall at turn start, extraction after it ------------

    def on_turn_start(self, prompt: str, history: list[Message]) -> None:
        self.turn_started(prompt, history)

    def on_tool_ran(self, call: ToolCall, args: dict[str, Any]) -> None:
        self.tool_ran(call, args)

    def guard_tool(self, call: ToolCall, tool: Tool, args: dict[str, Any], context: ToolContext) -> str | None:
        """Memory writes are checked: no secrets, a valid file in its type's folder."""
        from app.context.memory.agents import team_secret_refusal

        return team_secret_refusal(self.mem, tool.name, args, context)

    def on_context_filling(self, history: list[Message]) -> None:
        self.flush(history)

    def on_turn_end(self, history: list[Message], finished: bool) -> None:
        self.turn_ended(history, finished=finished)


def _memories(count: int) -> str:
    return f"{count} memor{'y' if count == 1 else 'ies'}"


def _template(name: str) -> str:
    from app.templates import package_template

    return package_template("app.context.memory", name)
