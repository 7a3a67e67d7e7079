"""The agents a task can be delegated to (the ``agent`` tool), and how one is built and run.

Built-ins: ``general-purpose`` (every tool the parent has) and ``Explore`` (read-only: it declares no
write, edit or shell tool). More come as Markdown files in Qwen Code's format — YAML frontmatter with
``name``, ``description``, ``tools`` and the body as the system prompt — from the user's config dir
(``agents/``) and, in a trusted folder only, the project's ``.qwen/agents/`` and ``.claude/agents/``:
an agent file is part of the project layer, text a repository brought that would choose tools and words.

A subagent is an ordinary Agent with a StaticAssembler (its own system prompt, nothing of the parent's
conversation), the parent's permission policy (so it is never allowed more than the parent), the
parent's tool context, and no one to ask: a call that needs approval is refused and it says so in its
report. Cancelling the parent's turn cancels it.
"""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

from app.core.agent import Agent, AgentLimits
from app.core.events import TurnCancelled, TurnFailed, TurnFinished, UsageUpdated
from app.core.llm.provider import Provider
from app.core.llm.retry import RetryPolicy
from app.core.static_assembler import StaticAssembler
from app.core.tools.agent_tool import TOOL_NAME, AgentSpec, Spawn, SubagentReport
from app.core.tools.base import ToolContext
from app.core.tools.permissions import ApprovalMode, PermissionPolicy
from app.core.tools.registry import ToolRegistry

READ_ONLY_TOOLS = ("read_file", "list_directory", "glob", "grep_search")
PROJECT_DIRS = (Path(".qwen") / "agents", Path(".claude") / "agents")

_REPORT = (
    "When you are done, answer with one final message: it is all the caller will see. Make it complete but "
    "short: what you found or did, with file paths and line numbers, and anything you could not do."
)
BUILT_INS = (
    AgentSpec(
        "general-purpose",
        "A general agent for multi-step tasks: researching, searching and changing code.",
        "You are a subagent of a coding agent, working on one task in the user's project. You cannot see the "
        f"conversation that delegated it: the task below is all you know. {_REPORT}",
    ),
    AgentSpec(
        "Explore",
        "A fast read-only agent for exploring the codebase: finding files, searching code, answering questions about it.",
        "You are a read-only exploration subagent. Find what the task asks for with the read, list, glob and "
        "search tools; you cannot change anything and have no shell. Read only what you need. " + _REPORT,
        tools=READ_ONLY_TOOLS,
    ),
)


def load_agents(config_dir: Path, project_root: Path, *, trusted: bool) -> tuple[list[AgentSpec], list[str]]:
    """Built-ins, then user agents, then (trusted folder only) project agents; a later one of a name wins.

    Returns the agents and one warning per file that could not be used (naming the file and why).
    """
    found = {spec.name: spec for spec in BUILT_INS}
    warnings: list[str] = []
    folders = [(config_dir / "agents", "user")]
    if trusted:
        folders += [(project_root / folder, "project") for folder in PROJECT_DIRS]
    for folder, level in folders:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            spec, problem = read_agent_file(path, level)
            if spec is not None:
                found[spec.name] = spec
            if problem:
                warnings.append(problem)
    return list(found.values()), warnings


def read_agent_file(path: Path, level: str) -> tuple[AgentSpec | None, str]:
    from app.context.frontmatter import FrontmatterError, read_frontmatter

    try:
        parsed = read_frontmatter(path.read_text(encoding="utf-8"), path=path)
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{path}: cannot be read ({exc}); the agent is skipped"
    except FrontmatterError as exc:
        return None, f"{exc}; the agent is skipped"
    data = parsed.data
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not name.strip() or not isinstance(description, str):
        return None, f"{path}: an agent file needs 'name' and 'description' in its frontmatter; the agent is skipped"
    tools = data.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",") if t.strip()]
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        return None, f"{path}: 'tools' must be a list of tool names; the agent is skipped"
    prompt = parsed.body.strip() or BUILT_INS[0].system_prompt
    return AgentSpec(name.strip(), description.strip(), prompt, tuple(tools) if tools is not None else None, source=f"{level} ({path})"), ""


def make_spawn(provider: Provider, registry: ToolRegistry, policy: PermissionPolicy, *, retry: RetryPolicy | None = None) -> Spawn:
    """The ``spawn`` the agent tool is given: builds and runs one subagent per call."""

    async def spawn(spec: AgentSpec, prompt: str, context: ToolContext) -> SubagentReport:
        tools = _tools_for(spec, registry, policy)
        agent = Agent(
            provider=provider,
            tools=tools,
            policy=policy,
            tool_context=context,
            assembler=StaticAssembler(spec.system_prompt, provider.model),
            retry=retry or RetryPolicy(max_retries=2, max_total_seconds=30),
            limits=AgentLimits(max_requests=spec.max_requests),
            interactive=False,
        )
        return await _run(agent, prompt)

    return spawn


def _tools_for(spec: AgentSpec, registry: ToolRegistry, policy: PermissionPolicy) -> ToolRegistry:
    available = registry.read_only() if policy.mode is ApprovalMode.PLAN else registry
    names = [tool.name for tool in available if tool.name != TOOL_NAME]  # no delegation from a delegate
    if spec.tools is not None:
        names = [name for name in names if name in set(spec.tools)]
    return available.restricted(names)


async def _run(agent: Agent, prompt: str) -> SubagentReport:
    requests = window = 0
    text, failure = "", ""
    async with aclosing(agent.run(prompt)) as events:
        async for event in events:
            if isinstance(event, UsageUpdated):
                requests += 1
                window = max(window, event.last.prompt_tokens)
            elif isinstance(event, TurnFinished):
                text = event.result
            elif isinstance(event, TurnFailed):
                failure = event.message
            elif isinstance(event, TurnCancelled):
                failure = "cancelled"
    return SubagentReport(text=text, requests=requests, window_tokens=window, failure=failure)


