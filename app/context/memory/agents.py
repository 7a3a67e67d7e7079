"""The agents and memory: the forked agents that extract and consolidate memories, what any agent may
touch, and what the background tasks are doing, in words.

The forked agents are the same Agent class, restricted.

They read and write only inside the memory roots they are given, run read-only
shell commands at most, and stop after a few requests or minutes. The request limit
is checked by the agent before each request; the minutes are a wall-clock limit on
the whole run (``run_memory_agent``), so one slow stream or tool call cannot outlast it.

What the agents may touch in memory: the write guard, the memory agents' tool verdicts, what a run wrote.
The guard on every write into memory, by the main agent and by the memory agents.

Memories are read back into later prompts (and team memory is committed for
everyone to read), so what would land in a memory file is checked before the
tool runs, and a refusal says why in the tool result, so the agent can fix it:

- a secret (the scanner's rules) in any scope refuses the write; the matched
  value is never repeated, only the kind of secret;
- a topic file must parse: frontmatter with a name, a description and one of
  the four types (read by the one frontmatter parser, document.py), in the
  folder of its type (``type: user`` belongs in ``user/``);
- a team root that fails its security check refuses every team write.

Whether the main agent wrote memory files itself during a turn (``written_path``):

When it did (the person said "remember this"), extracting memories from the
same turn again would only duplicate them.

What the background memory agents (extraction, dreaming) may do with their tools
(``memory_agent_decision``):

A shell command passes only when the read-only analysis clears it, with every
path it reads inside the memory roots;
edits and writes pass only inside the memory roots they are given (the
project and user roots for extraction, the project root for dreaming, where
the pinned directory stays read-only). Team memory is never among them: it is
committed, so writing it keeps asking the person. The verdict is merged with
the session's own, the stricter winning.

Which topics (memory types) a run touched, worked out from the paths it wrote
(``touched_topics_from_file_paths``):

The extraction and dream agents are not asked to report what they changed;
their writes say it. Windows paths may arrive with either slash, so both sides
are compared with ``/``, and a root must be followed by ``/`` so that
``/x/memory-other/...`` is not taken for ``/x/memory/...``.

What the tasks are doing, in words, is app/context/memory/tasks.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import field, replace
from app.dataclass import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

from app.context.memory.paths import (
    AUTO_MEMORY_TYPES,
    INDEX_FILENAME,
    PINNED_DIRNAME,
    MemoryPaths,
    MemoryScope,
    TeamMemoryRootSecurityError,
    check_team_root,
    is_auto_mem_path,
    is_team_auto_mem_path,
    realpath_nearest_existing,
)
from app.core.agent import Agent, AgentLimits, StaticAssembler
from app.core.events import ToolCallFinished
from app.core.llm.provider import Provider
from app.core.llm.retry import RetryPolicy
from app.core.protocols import ToolGuard
from app.core.tools.base import Tool, ToolContext, ToolKind
from app.core.tools.permissions import PermissionDecision
from app.core.tools.registry import builtin_registry

MEMORY_WRITE_TOOLS = frozenset({"write_file", "edit", "replace", "create_file"})
MEMORY_PATH_ARGUMENT_KEYS = ("file_path", "path", "target_file")


def written_path(tool_name: str, arguments: Mapping[str, Any] | str) -> str | None:
    """The file a writing tool call targets, or None for any other call."""
    if tool_name not in MEMORY_WRITE_TOOLS:
        return None
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return None
    if not isinstance(arguments, Mapping):
        return None
    for key in MEMORY_PATH_ARGUMENT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


FORMAT_HINT = (
    "A memory file starts with frontmatter:\n---\nname: <a short name>\ndescription: <one specific line>\n"
    "type: <user | feedback | project | reference>\n---\n<the fact>\nand sits in the <type>/ folder of its scope. "
    "Fix it and write it again."
)


def _content_after(tool_name: str, path: Path, args: dict[str, Any]) -> str:
    if tool_name != "edit":
        return str(args.get("content") or "")
    try:
        current = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        current = ""
    old, new = str(args.get("old_string") or ""), str(args.get("new_string") or "")
    return current.replace(old, new) if old else current + new


def memory_file_problems(text: str, rel_path: str) -> list[str]:
    """Why ``text`` cannot be used as the memory file at ``rel_path`` ([] when it can)."""
    from app.context.memory.document import parse_memory_text  # the guard's own imports load with a memory agent's first write

    document = parse_memory_text(text)
    problems = list(document.problems)
    if document.type is not None:
        if not document.name:
            problems.append("the frontmatter has no name")
        if not document.description:
            problems.append("the frontmatter has no description (it decides whether the memory is recalled)")
        folder = rel_path.split("/", 1)[0] if "/" in rel_path else ""
        if folder in AUTO_MEMORY_TYPES and folder != document.type.value:
            problems.append(f"its type is {document.type.value} but it is in {folder}/; put it in {document.type.value}/")
        elif folder not in AUTO_MEMORY_TYPES and folder != PINNED_DIRNAME:
            problems.append(f"it is not in a type folder; put it in {document.type.value}/")
    return problems


def _scope_through_links(mem: MemoryPaths, path: Path) -> MemoryScope | None:
    if is_team_auto_mem_path(mem.team_root, path):
        return MemoryScope.TEAM
    try:
        real = realpath_nearest_existing(path)
    except (OSError, RuntimeError):
        return None
    return _resolved(mem).scope_of(real)


def _resolved(mem: MemoryPaths) -> MemoryPaths:
    return replace(
        mem,
        project_root=Path(realpath_nearest_existing(mem.project_root)),
        user_root=Path(realpath_nearest_existing(mem.user_root)),
        team_root=Path(realpath_nearest_existing(mem.team_root)),
    )


def memory_write_refusal(mem: MemoryPaths, tool_name: str, args: dict[str, Any], base: Path) -> str | None:
    """The refusal for a write into a memory directory, or None when it may go ahead (or is not one)."""
    target = written_path(tool_name, args)
    if target is None:
        return None
    path = Path(os.path.abspath(target if os.path.isabs(target) else base / target))
    scope = mem.scope_of(path)
    if scope is None:
        # Judged where the write would really land: a (dangling) symlink outside that points into a
        # memory directory is a decoy, and is checked like a write there.
        scope = _scope_through_links(mem, path)
        if scope is None:
            return None
        path = Path(realpath_nearest_existing(path))
        mem = _resolved(mem)
    if scope is MemoryScope.TEAM:
        try:
            check_team_root(mem.workspace_root, mem.team_root)
        except TeamMemoryRootSecurityError as exc:
            return f"The write to team memory was refused: {exc}."
    from app.context.memory.secrets import describe_findings, scan

    content = _content_after(tool_name, path, args)
    findings = scan(content)
    if findings:
        where = (
            "Team memory is committed with the repository"
            if scope is MemoryScope.TEAM
            else f"{scope.value.capitalize()} memory is read into later prompts"
        )
        return (
            f"The write to {scope.value} memory was refused and nothing was written: {path.name} would hold what looks "
            f"like a secret ({describe_findings(findings)}). {where}; keep credentials out of it (say where the "
            "credential is kept instead, e.g. the vault entry's name)."
        )
    root = mem.root(scope)
    rel_path = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    if path.suffix != ".md" or rel_path == INDEX_FILENAME:
        return None
    problems = memory_file_problems(content, rel_path)
    if problems:
        return f"The memory file {rel_path} was not written: {'; '.join(problems)}. {FORMAT_HINT}"
    return None


def team_secret_refusal(mem: MemoryPaths, tool_name: str, args: dict[str, Any], ctx: ToolContext) -> str | None:
    """The main agent's guard (kept under its old name): every scope is checked now, not only team."""
    return memory_write_refusal(mem, tool_name, args, ctx.root)

SHELL_TOOL = "run_shell_command"
FILE_WRITE_TOOLS = ("edit", "write_file")


class ScopedDecision(IntEnum):
    """Ordered by strictness, so merging is ``max``."""

    DEFAULT = 1
    ALLOW = 2
    ASK = 3
    DENY = 4


@dataclass(frozen=True)
class ScopedVerdict:
    """What the memory agents' rules say about one tool call, and the rule and reason when they deny it."""

    decision: ScopedDecision
    label: str | None = None  # the rule named when denying
    reason: str | None = None


def memory_agent_decision(
    tool_name: str,
    arguments: Mapping[str, Any],
    roots: Sequence[Path],
    *,
    cwd: Path,
    protect_pinned: bool = False,
) -> ScopedVerdict:
    """The verdict for one tool call of a memory agent that may write only under ``roots``."""
    if tool_name == SHELL_TOOL:
        return _shell_verdict(arguments, roots, cwd)
    if tool_name in FILE_WRITE_TOOLS:
        return _write_verdict(tool_name, arguments, roots, cwd, protect_pinned)
    return ScopedVerdict(ScopedDecision.DEFAULT)


def _shell_verdict(arguments: Mapping[str, Any], roots: Sequence[Path], cwd: Path) -> ScopedVerdict:
    label = f"ManagedAutoMemory({SHELL_TOOL}: read-only only)"
    command = arguments.get("command")
    if not isinstance(command, str) or not command.strip():
        return ScopedVerdict(ScopedDecision.DENY, label, "no command was given")
    from app.core.tools.shell_readonly import read_only_refusal

    # Its reads too stay inside the memory directories, not just its writes.
    refusal = read_only_refusal(command, roots=roots, cwd=cwd)
    if refusal is not None:
        return ScopedVerdict(ScopedDecision.DENY, label, refusal)
    return ScopedVerdict(ScopedDecision.ALLOW)


def _write_verdict(tool_name: str, arguments: Mapping[str, Any], roots: Sequence[Path], cwd: Path, protect_pinned: bool) -> ScopedVerdict:
    label = f"ManagedAutoMemory({tool_name}: only within {' or '.join(str(r) for r in roots)})"
    target = next((arguments[k] for k in MEMORY_PATH_ARGUMENT_KEYS if isinstance(arguments.get(k), str) and arguments[k].strip()), None)
    if target is None:
        return ScopedVerdict(ScopedDecision.DENY, label, "no file path was given")
    absolute = os.path.abspath(os.path.join(cwd, target))
    for root in roots:
        # Both where the path says and where it leads: a symlink inside the root must not carry a write out.
        if is_auto_mem_path(root, absolute) and is_auto_mem_path(realpath_nearest_existing(root), realpath_nearest_existing(absolute)):
            if protect_pinned and is_auto_mem_path(Path(root) / PINNED_DIRNAME, absolute):
                return ScopedVerdict(ScopedDecision.DENY, label, "pinned memories are read-only")
            return ScopedVerdict(ScopedDecision.ALLOW)
    return ScopedVerdict(ScopedDecision.DENY, label, f"{absolute} is outside the memory directories")

def touched_topics_from_file_paths(file_paths: Iterable[str | Path], roots: Iterable[str | Path]) -> list[str]:
    """The distinct types, in order of first write, of the paths under one of ``roots``."""
    prefixes = [_slashed(root).rstrip("/") + "/" for root in roots]
    topics: list[str] = []
    for file_path in file_paths:
        path = _slashed(file_path)
        for prefix in prefixes:
            if path.startswith(prefix):
                topic = path[len(prefix) :].split("/", 1)[0]
                if topic in AUTO_MEMORY_TYPES and topic not in topics:
                    topics.append(topic)
                break
    return topics


def _slashed(path: str | Path) -> str:
    return str(path).replace("\\", "/")

@dataclass(frozen=True)
class AgentBudget:
    """How far a forked memory agent may go: model requests ("turns") and wall-clock seconds."""

    max_requests: int
    seconds: float


# The spec's limits: extraction 5 turns / 2 minutes, dream 8 turns / 5 minutes.
EXTRACTION_BUDGET = AgentBudget(max_requests=5, seconds=120.0)
DREAM_BUDGET = AgentBudget(max_requests=8, seconds=300.0)
# After the budget runs out the agent is cancelled; this long at most is waited for it to stop.
STOP_GRACE_SECONDS = 5.0

MEMORY_AGENT_TOOLS = ("read_file", "list_directory", "glob", "grep_search", "run_shell_command", "write_file", "edit")


@dataclass
class MemoryAgentPolicy:
    """Reads and writes only under ``roots``; everything else is denied (nobody is there to ask)."""

    roots: Sequence[Path]
    cwd: Path
    protect_pinned: bool = False

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[PermissionDecision, str]:
        verdict = memory_agent_decision(tool.name, args, list(self.roots), cwd=self.cwd, protect_pinned=self.protect_pinned)
        if verdict.decision is ScopedDecision.DENY:
            return PermissionDecision.DENY, verdict.reason or verdict.label or "not allowed for a memory agent"
        if verdict.decision is ScopedDecision.ALLOW or tool.kind is ToolKind.READ:
            return PermissionDecision.ALLOW, "memory agent"
        return PermissionDecision.DENY, "memory agents may only read and write memory files"

    def allow_for_session(self, tool: Tool, args: dict[str, Any]) -> list[str]:
        return []


def common_root(roots: Sequence[Path]) -> Path:
    """The nearest directory holding every root: the tools' workspace for a memory agent."""
    parts = [Path(r).resolve().parts for r in roots]
    shared: list[str] = []
    for items in zip(*parts):
        if len(set(items)) != 1:
            break
        shared.append(items[0])
    return Path(*shared) if shared else Path("/")


def build_memory_agent(
    provider: Provider,
    system_prompt: str,
    roots: Sequence[Path],
    *,
    max_requests: int,
    time_budget: float,
    protect_pinned: bool = False,
    mem: MemoryPaths | None = None,
) -> Agent:
    for root in roots:
        Path(root).mkdir(parents=True, exist_ok=True, mode=0o700)
    workspace = common_root(roots)
    context = ToolContext(root=workspace, read_only_shell=True, shell_timeout=30)
    agent = Agent(
        provider=provider,
        tools=builtin_registry().restricted(MEMORY_AGENT_TOOLS),
        policy=MemoryAgentPolicy(roots, workspace, protect_pinned),  # type: ignore[arg-type]
        tool_context=context,
        assembler=StaticAssembler(system_prompt, provider.model),
        retry=RetryPolicy(max_retries=1, max_total_seconds=20),
        limits=AgentLimits(max_requests=max_requests, time_budget=time_budget),
        interactive=False,
        # Its writes are checked like the main agent's: no secrets, a valid file in its type's folder.
        observers=[ToolGuard(lambda call, tool, args: memory_write_refusal(mem, tool.name, args, context.root))] if mem is not None else (),
    )
    return agent


@dataclass
class AgentRun:
    """What a memory agent did: files it wrote, whether any tool ran, and why it did not finish."""

    written: list[str] = field(default_factory=list)
    tools_ran: bool = False
    failure: str = ""
    timed_out: bool = False


async def run_memory_agent(agent: Agent, prompt: str, seconds: float, *, stop_grace: float = STOP_GRACE_SECONDS) -> AgentRun:
    """Run one memory agent's turn within ``seconds`` of wall-clock time, the whole run included.

    Past the budget the turn is cancelled and waited for (briefly) before this returns,
    so nothing keeps writing behind the caller's back. A file is written whole or not at
    all (the tools write atomically), so what was saved before the cut stays valid.
    """
    run = AgentRun()
    try:
        async with asyncio.timeout(seconds):
            async with aclosing(agent.run(prompt)) as events:
                async for event in events:
                    if isinstance(event, ToolCallFinished):
                        run.tools_ran = True
                        target = written_path(event.call.name, event.call.arguments)
                        if event.status == "ok" and target:
                            run.written.append(target if os.path.isabs(target) else str(agent.tool_context.root / target))
                    elif event.kind == "turn_failed":
                        run.failure = getattr(event, "message", "") or "the memory agent failed"
    except TimeoutError:
        run.timed_out = True
        run.failure = f"timed out: stopped at its time budget of {_seconds_in_words(seconds)}"
        await _stopped(agent, stop_grace)
    return run


async def _stopped(agent: Agent, grace: float) -> None:
    """Cancel the agent's turn and wait, at most ``grace`` seconds, until it has ended."""
    agent.cancel()
    loop = asyncio.get_running_loop()
    end = loop.time() + grace
    while agent.busy and loop.time() < end:
        await asyncio.sleep(0.01)


def _seconds_in_words(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} s"
