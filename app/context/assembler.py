"""The built-in context assembler: system prompt sections + instruction files + tools + history,
every part tagged with its source and counted.

The fixed parts (system prompt, instruction files) are built once per session and
again on ``refresh()`` (/memory refresh); each turn only adds the history, whose
counts are cached per message.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import field, replace
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.config import Settings
from app.context.compaction.pairing import repair_tool_pairs
from app.context.compaction.fit import does_not_fit
from app.context.compaction.pruning import prune_view
from app.context.compaction.slimming import cap_oversized
from app.context.instructions.budget import resolve_caps
from app.context.instructions.loader import InstructionSet, load_instructions
from app.context.prompt import GitInfo, PromptContext, SystemPrompt, SystemPromptError, build_system_prompt, read_git_info
from app.context.prompt import sections as section_names
from app.context.prompt.git_changes import changes_git
from app.context.prompt.git_info import has_snapshot
from app.context.prompt.prelude import prelude_messages, prelude_text
from app.context.prompt.suffix import SEPARATOR
from app.context.report import ContextReport, Row, build_report, save_report
from app.context.engine_turns import TurnLedger
from app.context.view_edits import ViewEdits
from app.core.request import MESSAGES, SYSTEM, AssembledRequest, ContextError, RequestPart, message_parts, tool_schema_parts
from app.core.history import Message, Usage
from app.core.llm.models import output_tokens_for
from app.core.protocols import TurnObserver
from app.core.tokens import Calibration, TokenCounter
from app.paths import Paths

if TYPE_CHECKING:
    from app.context.memory.manager import MemoryManager
    from app.context.skills.manager import SkillManager


_SECTION_KINDS = {
    section_names.CUSTOM: "custom_prompt",
    section_names.APPENDED: "appended",
    section_names.GIT_STATUS: "git_status",
}


@dataclass
class ContextAssembler(TurnObserver):
    """Builds each request the agent sends: the fixed parts once per session, then the turn's view of the history."""

    paths: Paths
    settings: Settings
    model: str
    context_window: int
    counter: TokenCounter
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    home: Path | None = None
    instructions: InstructionSet | None = None
    prompt: SystemPrompt | None = None
    problems: list[str] = field(default_factory=list)
    skills: SkillManager | None = None
    memory: MemoryManager | None = None
    ledger: TurnLedger | None = None  # the context engine leased per turn; None means the built-in view
    # What the person must be told during the turn (an engine quarantined); the agent emits them.
    notices: list[str] = field(default_factory=list)
    session_id: str = ""
    last_request: AssembledRequest | None = None
    last_usage: Usage | None = None
    calibration: Calibration = field(default_factory=Calibration)
    # What the person dropped, pinned or rewrote by hand (replayed from the record on resume).
    view_edits: ViewEdits = field(default_factory=ViewEdits)
    _system_parts: list[RequestPart] = field(default_factory=list)
    _prelude: list[Message] = field(default_factory=list)
    _memory_prompt: str = ""
    _prelude_parts: list[RequestPart] = field(default_factory=list)
    _git: GitInfo | None = None
    _git_calls: set[str] = field(default_factory=set)
    _git_scanned: int = 0
    _prompt_error: str = ""

    def __post_init__(self) -> None:
        if self.home is None:
            try:
                self.home = Path.home()
            except (RuntimeError, KeyError):
                self.home = None
        # Read once per session (and again after the agent's own git commands, see _refresh_git).
        # Run where the user is: from a subdirectory the status lists paths relative to it, as Qwen Code's does.
        self._git = read_git_info(self.paths.cwd) if (self.paths.project_root / ".git").exists() else None
        self._build_prelude()
        self.refresh()

    def _build_prelude(self) -> None:
        """Environment facts and the skills snapshot open the messages; built once per session (a stable prefix)."""
        environment = prelude_text(self.paths.cwd, self.paths.project_root)
        listing = self.skills.snapshot_reminder() if self.skills is not None else ""
        self._prelude = prelude_messages(environment, listing)
        user, ack = message_parts(self._prelude)
        parts = [RequestPart(block=MESSAGES, kind="prelude", name="session prelude", source="environment", text=environment, message_index=0)]
        if listing:
            parts.append(RequestPart(block=MESSAGES, kind="skills_listing", name="skills snapshot", source="available skills", text=f"\n\n{listing}", message_index=0))
        ack.kind, ack.name = "prelude", "session prelude"
        self._prelude_parts = [*parts, ack]

    def reminders(self) -> list[str]:
        """Recalled memories first, then what changed in the skills; each only when ready."""
        recalled = self.memory.take_recall() if self.memory is not None else None
        delta = self.skills.delta_reminder() if self.skills is not None else ""
        return [text for text in (recalled, delta) if text]

    # -- the fixed part ----------------------------------------------------------------------

    def refresh(self) -> None:
        """Discover instruction files and rebuild the system prompt (the next request uses it)."""
        context = self.settings.context
        self.instructions = load_instructions(
            self.paths.cwd,
            global_dir=self.paths.config_dir,
            home=self.home or self.paths.cwd,
            filenames=context.file_name,
            include_dirs=[self.paths.cwd / d for d in context.include_directories],
            per_file_cap=context.per_file_chars,
            total_cap=context.total_chars,
            import_format=context.import_format,
            window_tokens=self.context_window,
        )
        self._memory_prompt = self.memory.prompt_section() if self.memory is not None else ""
        if self.memory is not None:
            self.notices.extend(self.memory.take_notices())  # a secret masked out of an index, said once
        self._build_prompt()

    def _build_prompt(self) -> None:
        instructions = self.instructions
        assert instructions is not None
        self.problems = list(instructions.problems)
        user_memory = instructions.text
        if instructions.notice and user_memory:
            user_memory = f"{user_memory}\n\n{instructions.notice}"
        try:
            self.prompt = build_system_prompt(
                PromptContext(
                    cwd=self.paths.cwd,
                    project_root=self.paths.project_root,
                    model=self.model,
                    user_memory=user_memory,
                    memory_index=self._memory_prompt,
                    append=self.settings.append_system_prompt,
                    env=self.env,
                    home=self.home,
                    git=self._git,
                )
            )
        except SystemPromptError as exc:
            self.prompt = None
            self._prompt_error = str(exc)
            self.problems.append(str(exc))
            self._system_parts = []
            return
        self._prompt_error = ""
        self.problems.extend(self.prompt.warnings)
        self.problems.extend(self._git_problems())
        self._system_parts = self._split_sections(self.prompt, instructions)
        self.recount()

    def _git_problems(self) -> list[str]:
        """A credential in a commit subject or a file name is masked; the person is told once where it was."""
        if self._git is None or not has_snapshot(self._git):
            return []
        from app.context.prompt.git_snapshot import git_snapshot  # the fence and the secret scanner: only with git

        labels = dict.fromkeys(git_snapshot(self._git).secrets)
        return [f"git output (commit subjects, status) in {self._git.root} holds what looks like a credential ({label}); it is masked in the prompt" for label in labels]

    def _refresh_git(self, history: list[Message]) -> None:
        """After the agent's own git-changing shell command the snapshot is read again (and the prompt rebuilt)."""
        if self._git is None:
            return
        if len(history) < self._git_scanned:  # compacted: everything before is already accounted for
            self._git_scanned = 0
        changed = False
        for message in history[self._git_scanned :]:
            for call in message.tool_calls or ():
                if call.id not in self._git_calls and changes_git(call):
                    self._git_calls.add(call.id)
                    changed = True
        self._git_scanned = len(history)
        if changed:
            self._git = read_git_info(self.paths.cwd) or self._git
            self._build_prompt()

    def _split_sections(self, prompt: SystemPrompt, instructions: InstructionSet) -> list[RequestPart]:
        parts: list[RequestPart] = []
        for section in prompt.sections:
            if section.name == section_names.USER_MEMORY:
                parts.extend(self._memory_parts(section.text, instructions))
                continue
            if section.name == section_names.MEMORY_INDEX:
                body = section.text.removeprefix(SEPARATOR)
                if body != section.text:
                    parts.append(RequestPart(block=SYSTEM, kind="separator", name="separator", source="suffix rule", text=SEPARATOR))
                parts.append(RequestPart(block=SYSTEM, kind="memory_index", name="auto-memory", source="memory index", text=body))
                continue
            kind = _SECTION_KINDS.get(section.name, "section")
            parts.append(RequestPart(block=SYSTEM, kind=kind, name=section.name, source=section.source, text=section.text))
        return parts

    def _memory_parts(self, text: str, instructions: InstructionSet) -> list[RequestPart]:
        """The instruction files' section, one part per file so each is attributed."""
        rules = {id(f) for f in instructions.rules}
        pieces = [RequestPart(block=SYSTEM, kind="separator", name="separator", source="suffix rule", text=SEPARATOR)]
        for index, (file, block) in enumerate(instructions.blocks):
            kind = "rules" if id(file) in rules else "instruction_file"
            joined = block if index == 0 else f"\n\n{block}"
            pieces.append(
                RequestPart(block=SYSTEM, kind=kind, name=file.display_path, source=str(file.path), text=joined, status=str(file.status))
            )
        if instructions.notice and instructions.text:
            pieces.append(
                RequestPart(block=SYSTEM, kind="truncation_notice", name="truncation notice", source="instruction budget", text=f"\n\n{instructions.notice}")
            )
        if "".join(p.text for p in pieces) != text:
            # The pieces must add up to exactly what is sent; if they do not, attribute the whole.
            return [RequestPart(block=SYSTEM, kind="instruction_file", name="instruction files", source="user memory", text=text)]
        return pieces

    # -- each request --------------------------------------------------------------------------

    # -- the engine's part of a turn -----------------------------------------------------------------

    # As a TurnObserver: the engine is leased when the user entry is in, committed when the turn finishes.
    def on_turn_start(self, prompt: str, history: list[Message]) -> None:
        self.begin_turn(len(history) - 1)

    def on_turn_end(self, history: list[Message], finished: bool) -> None:
        self.end_turn(history, finished=finished)

    def begin_turn(self, turn_start: int) -> None:
        if self.ledger is not None:
            self.ledger.begin(turn_start)

    def end_turn(self, history: list[Message], *, finished: bool) -> None:
        ledger = self.ledger
        if ledger is None:
            return
        engine, start = ledger.active, ledger.turn_start
        ledger.end(history, finished=finished)
        for message in history[start or 0 :]:
            self._call_engine(engine, "ingest", self.session_id, message)
        if finished:
            self._call_engine(engine, "after_turn", self.session_id, history, start or 0)
            self._call_engine(engine, "maintain", self.session_id, self.paths.chats_dir / f"{self.session_id}.jsonl")

    def history_replaced(self, old: list[Message], new: list[Message]) -> None:
        """A compaction in the middle of a turn: the turn's fence moves to where its request now is.

        The live request is kept verbatim (the same message), so it is found by identity;
        failing that, the last real user message is the request.
        """
        ledger = self.ledger
        if ledger is None or ledger.turn_start is None or ledger.turn_start >= len(old):
            return
        from app.context.compaction.compose import live_tail_start  # only after a compaction

        live = old[ledger.turn_start]
        position = next((i for i, m in enumerate(new) if m is live), None)
        ledger.turn_start = position if position is not None else min(live_tail_start(new), len(new))

    def _call_engine(self, engine: object, method: str, *args: object) -> None:
        """Optional engine hooks: a missing one is fine; one that raises quarantines the engine."""
        hook = getattr(engine, method, None)
        if not callable(hook):
            return
        try:
            hook(*args)
        except Exception as exc:
            self._quarantine(engine, f"its {method}() raised {type(exc).__name__}: {exc}")

    def _quarantine(self, engine: object, reason: str) -> None:
        ledger = self.ledger
        if ledger is None or engine is ledger.builtin:
            logging.getLogger(__name__).warning("the built-in context engine failed: %s", reason)
            return
        engine_id = getattr(getattr(engine, "info", None), "id", "?")
        text = f"Context engine {engine_id!r} is quarantined for this process and the built-in engine is used: {reason}."
        logging.getLogger(__name__).warning(text)
        ledger.quarantine(text)
        self.problems.append(text)
        self.notices.append(text)

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    def _engine_view(self, history: list[Message]) -> tuple[list[Message], str]:
        """The engine picks what of the history before the current entry is seen; this turn's entries follow."""
        ledger = self.ledger
        if ledger is None:
            return history, ""
        prefix = ledger.prefix(history)
        current = history[len(prefix) :]
        engine = ledger.active
        try:
            result = engine.assemble(self.session_id, prefix, token_budget=self.context_window, model=self.model)
        except Exception as exc:  # a broken engine never stops the turn: the built-in view serves it, from now on
            self._quarantine(engine, f"its assemble() raised {type(exc).__name__}: {exc}")
            return history, ""
        return [*result.messages, *current], result.system_prompt_addition or ""

    def assemble(self, history: list[Message], tools: list[dict]) -> AssembledRequest:
        self._refresh_git(history)
        if self._prompt_error:
            raise ContextError(self._prompt_error)
        history, addition = self._engine_view(history)
        history, ids = self.edited_view(history)
        history_parts = message_parts(history, first_index=len(self._prelude))
        for part, pid in zip(history_parts, ids):
            part.part_id, part.edit = pid, self.view_edits.state_of(pid)
        tool_parts = tool_schema_parts(tools)
        for part in (*tool_parts, *history_parts):
            part.tokens = self.counter.count(part.text) + part.fixed_tokens
        # Fixed parts are copied: a request is a record of what was sent and must not change later.
        system = [replace(p) for p in self._system_parts]
        if addition:
            source = self.ledger.active.info.id if self.ledger else ""
            system.insert(0, RequestPart(block=SYSTEM, kind="section", name="engine addition", source=source, text=f"{addition}\n\n"))
        prelude = [replace(p) for p in self._prelude_parts]
        parts = [*system, *tool_parts, *prelude, *history_parts]
        used = self.calibration.apply(sum(p.tokens for p in parts))
        return AssembledRequest(
            parts=parts,
            messages=[*self._prelude, *history],
            tools=list(tools),
            model=self.model,
            context_window=self.context_window,
            token_method=self.counter.method,
            max_tokens=output_tokens_for(self.context_window, used, self.settings.model.max_output_tokens),
        )

    def request_tokens(self, history: list[Message], tools: list[dict]) -> int:
        """Our count of the request ``history`` would make (the built-in view), without assembling it."""
        fixed = sum(p.tokens for p in (*self._system_parts, *self._prelude_parts))
        schemas = sum(self.counter.count(p.text) for p in tool_schema_parts(tools))
        messages = sum(self.counter.count(p.text) + p.fixed_tokens for p in message_parts(self.view_of(history)))
        return fixed + schemas + messages

    def fixed_tokens(self, request: AssembledRequest) -> int:
        """What no compaction can shrink: system prompt, tools, and the session prelude (skills listing)."""
        return sum(p.tokens for p in request.parts if p.block != MESSAGES or (p.message_index is not None and p.message_index < len(self._prelude)))

    def does_not_fit(self, request: AssembledRequest, *, tokens: int, fixed_part: bool = False) -> str:
        """Why ``request`` (``tokens`` as the gate measures it) cannot be sent, part by part, and what to do."""
        return does_not_fit(request, tokens=tokens, window=self.context_window, fixed_messages=len(self._prelude), fixed_part=fixed_part)

    def view_of(self, history: list[Message]) -> list[Message]:
        """What is sent of the history: tool pairs repaired, old results pruned once the cache is cold,
        and any one message larger than half the window cut to its head and tail.

        Neither changes the history or the record; a resumed session computes the same view.
        """
        return self.edited_view(history)[0]

    def edited_view(self, history: list[Message]) -> tuple[list[Message], list[str]]:
        """``view_of`` and the stable part id of each message in it (the person's edits applied, pinned parts never pruned)."""
        view, ids = self.view_edits.edit_view(repair_tool_pairs(history).messages)
        settings = self.settings.compaction
        last = self.last_request
        if settings.pruning == "cache-ttl" and last is not None and time.time() - last.created_at >= settings.prune_ttl_minutes * 60:
            keep = frozenset(i for i, pid in enumerate(ids) if pid in self.view_edits.pinned)
            view = prune_view(view, self.context_window, keep=keep).messages
        return cap_oversized(view, self.context_window), ids

    def observe(self, request: AssembledRequest, usage: Usage | None) -> None:
        """Remember what was sent and what it cost; save the run report next to the session record."""
        self.last_request, self.last_usage = request, usage
        if usage is not None:
            self.calibration.observe(request.total_tokens, usage.prompt_tokens)
        if self.session_id:
            try:
                save_report(self.report(request, source="run", usage=usage), self.paths.chats_dir)
            except OSError as exc:
                self.problems.append(f"Could not save the context report: {exc}")

    def report(self, request: AssembledRequest, *, source: str, usage: Usage | None = None) -> ContextReport:
        caps = self.instructions.caps if self.instructions is not None else resolve_caps(None, None, self.context_window)
        return build_report(
            request,
            source=source,
            session_id=self.session_id,
            usage=usage,
            instruction_rows=self.instruction_rows(),
            per_file_cap=caps.per_file,
            total_cap=caps.total,
            problems=self.problems,
            calibration_ratio=self.calibration.ratio if source == "estimate" else 1.0,
            compaction_pct=self.settings.compaction.pct,
            compaction_origin=self.settings.compaction.pct_source,
        )

    def recount(self) -> None:
        """Count the fixed parts again (after the exact vocabulary finished loading)."""
        for part in (*self._system_parts, *self._prelude_parts):
            part.tokens = self.counter.count(part.text)

    # -- what the report shows about instruction files -------------------------------------------

    def instruction_rows(self) -> list[Row]:
        rows: list[Row] = []
        if self.instructions is None:
            return rows
        for file in self.instructions.rows:
            block = file.block
            rows.append(
                Row(
                    name=file.display_path,
                    tokens=self.counter.count(block),
                    chars=file.injected_chars,
                    source=str(file.path),
                    status=str(file.status),
                    raw_chars=file.raw_chars,
                    detail=file.memory_type,
                )
            )
        return rows

    def instructions_text(self) -> str:
        return self.instructions.text if self.instructions else ""
