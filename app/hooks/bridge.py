"""The hooks, seen from the agent: one method per point of the turn where a hook may run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from app.dataclass import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.hooks.last_runs import LAST_RUNS_FILE, LastRun, load_last_runs
from app.hooks.runner import HookResult, HookRunner, context_from, decision_from
from app.hooks.trust import FolderTrust
from app.core.history import ToolCall

if TYPE_CHECKING:
    from app.hooks.spec import HookSpec

# Tool output sent to a PostToolUse hook is cut: hooks want to know what happened, not to re-read files.
MAX_TOOL_OUTPUT_TO_HOOK = 16_000


@dataclass
class ToolVerdict:
    """What the PreToolUse hooks said about a tool call: deny, ask, allow, or nothing."""

    decision: str = ""  # "", deny, ask, allow
    reason: str = ""


@dataclass
class AgentHookBridge:
    """Runs the hooks at each point of a turn and keeps what they add until the agent takes it."""

    runner: HookRunner
    reminders: list[str] = field(default_factory=list)  # context hooks gave, waiting for the next request
    notices: list[str] = field(default_factory=list)  # problems to tell the person about (each once)

    def take_notices(self) -> list[str]:
        taken, self.notices = self.notices, []
        return taken

    def take_reminders(self) -> list[str]:
        taken, self.reminders = self.reminders, []
        return [f"<system-reminder>\n{text}\n</system-reminder>" for text in taken]

    async def prompt_submitted(self, prompt: str) -> str | None:
        """The reason when a hook blocks the prompt; its added context is queued as a reminder."""
        if not self.runner.has("UserPromptSubmit"):
            return None
        results = await self.runner.run("UserPromptSubmit", {"prompt": prompt})
        decision, reason = decision_from(results)
        if decision in ("block", "deny"):
            return reason or "a UserPromptSubmit hook blocked this prompt"
        self._queue(context_from(results))
        return None

    async def before_tool(self, call: ToolCall, args: dict[str, Any]) -> ToolVerdict:
        if not self.runner.has("PreToolUse"):
            return ToolVerdict()
        results = await self.runner.run("PreToolUse", {"tool_name": call.name, "tool_input": args, "tool_call_id": call.id}, match=call.name)
        decision, reason = decision_from(results)
        return ToolVerdict(decision if decision in ("deny", "ask", "allow") else "", reason)

    async def after_tool(self, call: ToolCall, args: dict[str, Any], output: str, status: str) -> None:
        if not self.runner.has("PostToolUse"):
            return
        payload = {"tool_name": call.name, "tool_input": args, "tool_call_id": call.id, "tool_output": output[:MAX_TOOL_OUTPUT_TO_HOOK], "status": status}
        self._queue(context_from(await self.runner.run("PostToolUse", payload, match=call.name)))

    async def turn_stopped(self, outcome: str) -> None:
        if self.runner.has("Stop"):
            await self.runner.run("Stop", {"outcome": outcome})

    async def pre_compact(self, trigger: str) -> str:
        """Context for the summarizer's instructions (sanitized, capped), after the user's focus text."""
        if not self.runner.has("PreCompact"):
            return ""
        kind = _trigger_kind(trigger)
        return context_from(await self.runner.run("PreCompact", {"trigger": kind}, match=kind))

    async def post_compact(self, trigger: str, summary: str) -> None:
        if self.runner.has("PostCompact"):
            kind = _trigger_kind(trigger)
            await self.runner.run("PostCompact", {"trigger": kind, "summary": summary}, match=kind)

    async def compacted(self, trigger: str, summary: str) -> None:
        """After a successful summary compaction: PostCompact, then SessionStart with source "compact".

        The conversation goes on from a summary, so a SessionStart hook may give again the
        context it gave at startup; what it adds joins the next request as a reminder.
        """
        await self.post_compact(trigger, summary)
        await self.session_started("compact")

    async def session_started(self, source: str) -> None:
        if self.runner.has("SessionStart"):
            self._queue(context_from(await self.runner.run("SessionStart", {"source": source}, match=source)))

    async def instructions_loaded(self, files: list[dict[str, str]]) -> None:
        if self.runner.has("InstructionsLoaded"):
            await self.runner.run("InstructionsLoaded", {"files": files})

    def _queue(self, text: str) -> None:
        if text:
            self.reminders.append(text)


def _trigger_kind(trigger: str) -> str:
    """Hooks see two triggers: the person's /compress (manual) and everything the window set off (auto)."""
    return "manual" if trigger == "manual" else "auto"


def build_hooks(
    entries: list[dict[str, Any]],
    *,
    cwd: Path,
    project_root: Path,
    config_dir: Path,
    session_id: str,
    report: Callable[[str], None],
    state_dir: Path | None = None,
) -> tuple[AgentHookBridge, list[str]]:
    """The bridge for a session, and the problems found in the hook settings."""
    if entries:  # the parser (shlex, its patterns) only for a session that has hooks
        from app.hooks.spec import parse_hook
    specs: list[HookSpec] = []
    problems: list[str] = []
    for entry in entries:
        spec, problem = parse_hook(entry)
        if spec is None:
            problems.append(problem)
        else:
            specs.append(spec)
    trust = FolderTrust(config_dir)
    last_runs = state_dir / LAST_RUNS_FILE if state_dir is not None else None
    runner = HookRunner(specs, cwd, trusted=lambda: trust.state(project_root) == "trusted", session_id=session_id, last_runs_file=last_runs)
    bridge = AgentHookBridge(runner)

    def told(text: str) -> None:
        bridge.notices.append(text)
        report(text)

    bridge.runner.report = told
    return bridge, problems


def hooks_table(bridge: AgentHookBridge, trust_state: str) -> str:
    """/hooks and `agentctx-tui hooks list`: every hook, where it came from, and how it last went."""
    specs = bridge.runner.specs
    if not specs:
        return "No hooks are configured. Add them under 'hooks:' in settings.yaml (user or .qwen/settings.yaml)."
    lines = [f"Project folder trust: {trust_state}", ""]
    earlier = load_last_runs(bridge.runner.last_runs_file)
    for spec in specs:
        lines.append(f"{spec.label}")
        lines.append(f"    from {spec.layer} settings ({spec.file}), timeout {spec.timeout:g} s")
        lines.append(f"    last run: {_last_run(bridge.runner.last.get(spec.key), earlier.get(spec.key))}")
    return "\n".join(lines)


def _last_run(now: HookResult | None, earlier: LastRun | None) -> str:
    if now is not None:
        return now.summary
    if earlier is not None:
        when = datetime.fromtimestamp(earlier.at).strftime("%Y-%m-%d %H:%M")
        return f"{earlier.summary} (at {when}, in an earlier session)"
    return "not run yet"
