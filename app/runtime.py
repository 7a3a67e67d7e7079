"""Wiring: from settings and a working directory to a ready Agent.

The TUI and the headless mode both start here, so they run the same agent with
the same tools, permissions and session record.
"""

from __future__ import annotations

import asyncio
import os
from datetime import datetime
from dataclasses import field, replace
from app.dataclass import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app import __version__
from app.config import MemorySettings, Settings
from app.context.assembler import ContextAssembler
from app.context.view_edits import SUBTYPE_VIEW_EDIT, ViewEdits
from app.context.engine import EngineHost, select_engine
from app.hooks.bridge import AgentHookBridge, build_hooks
from app.context.engine_turns import TurnLedger
from app.context.compaction.compactor import Compactor
from app.core.agent import Agent, AgentLimits
from app.context.skills.drafts import SkillDrafter
from app.context.skills.discovery import skills_dirs
from app.context.skills import SkillGrantPolicy, SkillManager, SkillTool
from app.context.skills.turns import SkillTurns
from app.context.memory.manager import MemoryManager
from app.context.memory.paths import MemoryPaths
from app.core.history import Message, Usage
from app.core.protocols import TurnObserver
from app.core.llm.provider import Provider
from app.core.tools.permission_rules import escape_pattern, parse_rule
from app.core.llm.models import context_window_for, output_token_limit, takes_images
from app.core.llm.retry import RetryPolicy
from app.core.session.recorder import SessionRecorder
from app.core.status import StatusRelay
from app.core.tools.base import ToolContext
from app.core.tools.permissions import ApprovalMode, PermissionPolicy
from app.core.tools.registry import ToolRegistry, builtin_registry
from app.core.tokens import TokenCounter
from app.context.skills.switches import project_disabled
from app.paths import Paths
from app.project_layer import grant_lines
from app.trust import FolderTrust

if TYPE_CHECKING:
    from app.core.session.auto_title import AutoTitler
    from app.mcp.manager import McpManager


NO_ENDPOINT_MESSAGE = (
    "No model endpoint is configured. Set OPENAI_BASE_URL (e.g. https://api.openai.com/v1), "
    "OPENAI_MODEL and OPENAI_API_KEY, or model.base_url / model.name / model.api_key in settings.yaml."
)


@dataclass(repr=False)
class Runtime:
    """One session's parts, wired: the agent with its record, tools, permissions, context, skills, memory and hooks."""

    settings: Settings
    paths: Paths
    agent: Agent | None
    recorder: SessionRecorder
    registry: ToolRegistry
    policy: PermissionPolicy
    assembler: ContextAssembler
    skills: SkillManager
    drafter: SkillDrafter
    memory: MemoryManager
    hooks: AgentHookBridge
    resumed_messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    titles: AutoTitler | None = None
    # When a resumed session was last written to (its last record), for the recap after a break.
    last_activity: datetime | None = None
    # A resumed session's size after its latest compaction, until an answer reports a fresh one.
    resumed_tokens: int = 0
    # Whether the user trusts this folder (its project layer applies, its skills may grant writes).
    folder_trusted: bool = False
    # The configured MCP servers (None when there are none: the SDK is then never imported).
    mcp: McpManager | None = None
    # Where memory, skills and drafts publish their background status (connected by the TUI).
    status: StatusRelay = field(default_factory=StatusRelay)

    def __repr__(self) -> str:
        # Short on purpose: Textual's @work describes each call by repr'ing its arguments, and the
        # generated repr spelt out every resumed message (a 100 MB session took 5x its size in RAM).
        return f"Runtime(session={self.recorder.session_id!r}, resumed_messages={len(self.resumed_messages)})"

    async def start_session(self, source: str) -> list[str]:
        """SessionStart and InstructionsLoaded hooks; returns the problems to show (each once)."""
        await self.hooks.session_started(source)
        instructions = self.assembler.instructions
        files = [{"path": str(f.path), "memory_type": str(f.memory_type)} for f in (instructions.files if instructions else [])]
        if files:
            await self.hooks.instructions_loaded(files)
        notices = self.hooks.take_notices()
        for text in notices:
            self.recorder.append_system("hook_problem", {"message": text})
        return notices

    def start_mcp(self) -> None:
        """Connect the MCP servers in the background (on the running loop); never waits."""
        if self.mcp is not None:
            self.mcp.start()

    async def aclose(self, *, drain_seconds: float = 0.0) -> None:
        """Stop the turn, let background memory work finish (bounded), dispose the engine, close connections."""
        if self.agent is not None:
            self.agent.cancel()
        if self.mcp is not None:
            await self.mcp.aclose()  # stdio servers' process groups are stopped here
        # Memory work and a title query in flight share one bounded wait.
        drains = [self.memory.drain(drain_seconds), self.drafter.drain(drain_seconds)]
        if self.titles is not None:
            drains.append(self.titles.drain(drain_seconds))
        await asyncio.gather(*drains)
        ledger = self.assembler.ledger
        if ledger is not None:
            dispose = getattr(ledger.engine, "dispose", None)
            if callable(dispose):
                try:
                    dispose()
                except Exception:
                    pass
        if self.agent is not None:
            await self.agent.aclose()

    @property
    def session_id(self) -> str:
        return self.recorder.session_id

    def untrusted_changes(self) -> list[str]:
        """What this untrusted folder's project layer would change (empty in a trusted folder or one that brings nothing)."""
        if self.folder_trusted:
            return []
        layer = self.settings.project_layer.changes if self.settings.project_layer.ignored else []
        return [*layer, *grant_lines(entry.skill for entry in self.skills.skills if entry.skill is not None)]

    @property
    def model_label(self) -> str:
        name = self.settings.model.name or "no model"
        return f"{name} (demo)" if self.settings.demo else name

    @property
    def context_window(self) -> int:
        return context_window_for(self.settings.model.name, self.settings.model.context_window)

    @property
    def mode(self) -> ApprovalMode:
        return self.policy.mode

    @property
    def tools(self) -> ToolRegistry:
        """What the model is offered: plan mode offers only the read-only tools."""
        return self.registry.read_only() if self.policy.mode is ApprovalMode.PLAN else self.registry

    def set_mode(self, mode: ApprovalMode) -> None:
        """Change the approval mode from the next tool call on (the mode toggle, /approval-mode)."""
        self.policy.mode = mode
        self.settings.approval_mode = mode.value  # a new session (ctrl+n) keeps the chosen mode
        if self.agent is not None:
            self.agent.tools = self.tools

    def switch_model(self, name: str, context_window: int | None = None) -> int:
        """Talk to another model of the same endpoint from the next request; returns its window.

        ``context_window`` is the configured override for this model, if any; without it the
        window comes from the model's family, so the gauge and thresholds follow the switch.
        """
        self.settings.model.name = name
        self.settings.model.context_window = context_window
        window = self.context_window
        self.assembler.model = name
        self.assembler.context_window = window
        agent = self.agent
        if agent is not None:
            agent.provider.model = name
            agent.context_window = window
            if agent.compactor is not None:
                agent.compactor.context_window = window
        return window


def git_branch(root: Path) -> str | None:
    """The branch the session record names, read the way the git snapshot reads it (right in a worktree too)."""
    if not (root / ".git").exists():
        return None
    from app.context.prompt.git_info import read_branch

    return read_branch(root)


@dataclass
class OpenedSession:
    """The session record to append to and what it already holds."""

    recorder: SessionRecorder
    messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    last_usage: Usage | None = None
    last_activity: datetime | None = None
    # The size the latest compaction left the context at, when no answer came after it.
    checkpoint_tokens: int | None = None
    # The person's hand edits of the view, replayed from the session's view_edit records.
    view_edits: ViewEdits = field(default_factory=ViewEdits)
    session_usage: Usage | None = None


def open_recorder(paths: Paths, *, resume: str | None, continue_latest: bool) -> OpenedSession:
    branch = git_branch(paths.project_root)
    summary = None
    if resume or continue_latest:  # the listing and the resume reader load only to reopen a session
        from app.core.session.listing import find_session, latest_session

        summary = find_session(paths.chats_dir, resume) if resume else latest_session(paths.chats_dir)
    if summary is None:
        warnings = ["No earlier session in this project to continue; starting a new one."] if continue_latest else []
        recorder = SessionRecorder(paths.chats_dir, cwd=paths.cwd, version=__version__, git_branch=branch)
        return OpenedSession(recorder, warnings=warnings)
    from app.core.session.resume import load_session

    from app.core.session.rescue import merge_rescued

    # What a full disk kept aside comes back first, in its place, and the person is told.
    merged = merge_rescued(summary.path)
    loaded = load_session(summary.path)
    if merged:
        loaded.warnings.insert(0, merged)
    recorder = SessionRecorder.resume(summary.path, cwd=paths.cwd, version=__version__, git_branch=branch)
    recorder.adopt(title=loaded.title, title_source=loaded.title_source, large_results=loaded.large_results)
    edits = ViewEdits.replay(r.system_payload for r in loaded.records if r.subtype == SUBTYPE_VIEW_EDIT)
    return OpenedSession(
        recorder, loaded.messages, list(loaded.warnings), loaded.last_usage, loaded.updated_at,
        loaded.checkpoint_tokens, view_edits=edits, session_usage=loaded.session_usage,
    )


def build_runtime(
    settings: Settings,
    paths: Paths,
    *,
    resume: str | None = None,
    continue_latest: bool = False,
    interactive: bool = True,
) -> Runtime:
    """Everything a turn needs, each part built once. ``agent`` is None when no endpoint is configured."""
    opened = open_recorder(paths, resume=resume, continue_latest=continue_latest)
    session_id = opened.recorder.session_id
    warnings = opened.warnings
    folder_trusted = FolderTrust(paths.config_dir).is_trusted(paths.project_root)
    policy = SkillGrantPolicy(
        allow=settings.permissions.allow,
        ask=settings.permissions.ask,
        deny=settings.permissions.deny,
        mode=ApprovalMode(settings.approval_mode),
        root=paths.project_root,
        folder_trusted=folder_trusted,
        sandbox=settings.shell.sandbox,
    )
    warnings.extend(policy.warnings)
    provider = model_provider(settings) if settings.has_endpoint else None
    # Memory, skills and drafts report their background work through this one sink (the TUI connects it).
    status = StatusRelay()
    skills = SkillManager(
        paths.project_root, paths.config_dir, _home(), disabled=[*settings.skills.disabled, *project_disabled(paths)], status=status
    )
    skill_turns = SkillTurns(skills, policy)
    drafter = SkillDrafter(
        config_dir=paths.config_dir,
        skill_dirs=lambda: [d.path.resolve() for d in skills_dirs(paths.project_root, paths.config_dir, _home())],
        session_id=session_id,
        enabled=settings.skills.auto_draft and interactive,
        provider=provider,
        status=status,
    )
    memory = MemoryManager(
        paths, session_id=session_id, settings=_memory_settings(settings, interactive), provider=provider, interactive=interactive, status=status
    )
    memory.refresh_indexes()  # before the prompt reads them: a crash may have left one stale
    if provider is not None:
        memory_permissions(policy, memory.mem)
    registry = builtin_registry()
    registry.register(SkillTool(skills, on_invoke=skill_turns.invoked))
    if provider is not None:
        warnings.extend(_register_agents(registry, provider, policy, paths, trusted=folder_trusted))
    window = context_window_for(settings.model.name, settings.model.context_window)
    selection = select_engine(
        settings.context.engine,
        EngineHost(
            state_dir=paths.project_state_dir / "engines" / settings.context.engine,
            project_root=paths.project_root,
            model=settings.model.name,
            context_window=window,
            settings=dict(settings.context.engine_options),
        ),
    )
    if selection.problem:
        warnings.append(selection.problem)
    assembler = ContextAssembler(
        paths=paths,
        settings=settings,
        model=settings.model.name,
        context_window=window,
        counter=TokenCounter(settings.model.name),
        skills=skills,
        memory=memory,
        session_id=session_id,
        ledger=TurnLedger(selection.engine, session_id, outbox=paths.project_state_dir / "engines" / f"outbox-{session_id}.json"),
        view_edits=opened.view_edits,
    )
    hooks, hook_problems = build_hooks(
        settings.hooks,
        cwd=paths.cwd,
        project_root=paths.project_root,
        config_dir=paths.config_dir,
        session_id=session_id,
        report=lambda text: None,  # the agent (or start_session) says and records each problem
        state_dir=paths.project_state_dir,
    )
    warnings.extend(hook_problems)
    mcp = mcp_manager(settings, paths, registry, policy, assembler.counter.count, window, trusted=folder_trusted)
    agent = titles = None
    if provider is not None:
        # Interactive sessions only name themselves: a headless run exits right after its answer, and a
        # title query would hold it up (the session is named when next resumed in the TUI).
        if interactive:
            from app.core.session.auto_title import AutoTitler

            titles = AutoTitler(opened.recorder, provider, enabled=settings.sessions.auto_title)
        # The order every turn's observers are told in: the engine's lease first (recall and skills
        # see the leased turn), the title last (after extraction is scheduled).
        observers = [assembler, skill_turns, drafter, memory, *([titles] if titles is not None else [])]
        agent = make_agent(settings, paths, provider, assembler, opened, policy, registry, hooks, observers, memory=memory, skills=skills, interactive=interactive)
    return Runtime(
        settings=settings,
        paths=paths,
        agent=agent,
        recorder=opened.recorder,
        registry=registry,
        policy=policy,
        assembler=assembler,
        skills=skills,
        drafter=drafter,
        memory=memory,
        hooks=hooks,
        resumed_messages=list(opened.messages),
        last_activity=opened.last_activity,
        warnings=[*settings.warnings, *warnings, *assembler.problems, *(mcp.problems if mcp is not None else [])],
        resumed_tokens=opened.checkpoint_tokens or 0,
        folder_trusted=folder_trusted,
        titles=titles,
        mcp=mcp,
        status=status,
    )


def mcp_manager(  # type: ignore[no-untyped-def]
    settings: Settings, paths: Paths, registry: ToolRegistry, policy: PermissionPolicy, count, window: int, *, trusted: bool
) -> McpManager | None:
    """The MCP servers' manager, or None when none is configured (nothing of MCP is imported then).

    A project's own servers start only in a trusted folder; the settings loader already leaves an
    untrusted project layer out, and the manager checks each server's layer again.
    """
    if not settings.mcp_servers:
        return None
    from app.mcp.deferral import DeferredTools
    from app.mcp.manager import McpManager

    deferred = DeferredTools(registry, context_window=window, share=settings.mcp.deferred_share, count=count)
    return McpManager(
        settings.mcp_servers,
        trusted=trusted,
        registry=registry,
        policy=policy,
        connect_timeout=settings.mcp.connect_timeout,
        deferred=deferred,
        # Plan mode refuses MCP tools (they may change anything); their schemas would only cost tokens.
        register_tools=settings.approval_mode != "plan",
    )


def model_provider(settings: Settings) -> Provider:
    """The configured endpoint's client (the caller checks ``settings.has_endpoint``)."""
    from app.core.llm.openai_compat import OpenAICompatProvider

    model = settings.model
    return OpenAICompatProvider(
        base_url=model.base_url,
        model=model.name,
        api_key=model.api_key,
        connect_timeout=model.connect_timeout,
        read_timeout=model.read_timeout,
        request_timeout=model.request_timeout,
        max_line_bytes=model.max_line_bytes,
        max_answer_chars=model.max_answer_chars,
        # Every request carries max_tokens; the conversation's own requests cap it by what the window leaves.
        max_output_tokens=output_token_limit(context_window_for(model.name, model.context_window), model.max_output_tokens),
        temperature=model.temperature,
    )


def make_agent(  # noqa: PLR0913 (the composition root hands each collaborator over once, by name)
    settings: Settings,
    paths: Paths,
    provider: Provider,
    assembler: ContextAssembler,
    opened: OpenedSession,
    policy: PermissionPolicy,
    registry: ToolRegistry,
    hooks: AgentHookBridge,
    observers: list[TurnObserver],
    *,
    memory: MemoryManager,
    skills: SkillManager,
    interactive: bool,
) -> Agent:
    model = settings.model
    mem = memory.mem
    window = context_window_for(model.name, model.context_window)
    ledger = assembler.ledger
    engine = ledger.engine if ledger is not None and ledger.engine.info.owns_compaction else None
    compactor = Compactor(
        provider=provider,
        settings=settings.compaction,
        counter=assembler.counter,
        root=paths.project_root,
        context_window=window,
        calibration=assembler.calibration,
        skill_bodies=lambda: [invocation.content for invocation in skills.invoked.values()],
        view_edits=assembler.view_edits,
        # An engine that owns compaction is asked to do it.
        engine=engine,
        session_id=assembler.session_id if engine is not None else "",
        pre_compact=hooks.pre_compact,
        post_compact=hooks.compacted,  # PostCompact, then SessionStart (compact)
    )
    return Agent(
        provider=provider,
        tools=registry.read_only() if policy.mode is ApprovalMode.PLAN else registry,
        policy=policy,
        tool_context=ToolContext(
            root=paths.project_root,
            shell_timeout=settings.shell.timeout,
            output_limit=settings.shell.output_limit,
            sandbox=settings.shell.sandbox,
            extra_roots=(mem.project_root, mem.user_root),
            images=takes_images(model.name, model.vision),
        ),
        assembler=assembler,
        recorder=opened.recorder,
        history=opened.messages,
        retry=RetryPolicy(max_retries=model.max_retries, max_total_seconds=model.max_retry_seconds),
        limits=AgentLimits(max_requests=settings.max_turns),
        context_window=window,
        interactive=interactive,
        compactor=compactor,
        observers=observers,
        hooks=hooks,
        # The resumed context's size until the next answer reports a fresh one.
        last_usage=opened.last_usage,
        session_usage=opened.session_usage,
    )


def _register_agents(registry: ToolRegistry, provider: Provider, policy: PermissionPolicy, paths: Paths, *, trusted: bool) -> list[str]:
    """The ``agent`` tool, with the built-in, user and (in a trusted folder) project agents; the files' warnings."""
    from app.context.subagents import load_agents, make_spawn
    from app.core.tools.agent_tool import AgentTool

    agents, warnings = load_agents(paths.config_dir, paths.project_root, trusted=trusted)
    # The built-in tools as they are now: never the agent tool itself, and no skills (their grants are the parent's).
    tools = ToolRegistry(tool for tool in registry if tool.name != "skill")
    registry.register(AgentTool(agents, make_spawn(provider, tools, policy)))
    return warnings


def memory_permissions(policy: PermissionPolicy, mem: MemoryPaths) -> None:
    """Writes into the project and user memory dirs are allowed; team memory always asks (it is committed)."""
    for root in (mem.project_root, mem.user_root):
        for tool in ("write_file", "edit"):
            policy.extra_allow.append(parse_rule(f"{tool}({escape_pattern(str(root))}/**)"))
    team = os.path.relpath(mem.team_root, policy.root) if policy.root else str(mem.team_root)
    for tool in ("write_file", "edit"):
        policy.always_ask.append(parse_rule(f"{tool}({escape_pattern(team)}/**)"))


def _memory_settings(settings: Settings, interactive: bool) -> MemorySettings:
    """Headless runs keep recall but leave background extraction and dreaming to interactive sessions."""
    memory = settings.memory
    if interactive or memory.headless_background:
        return memory
    return replace(memory, extraction=False, dream=False)


def _home() -> Path:
    try:
        return Path.home()
    except (RuntimeError, KeyError):
        return Path("/")
