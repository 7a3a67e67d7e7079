"""``agent``: delegate a task to a subagent with a window of its own; only its final report comes back.

Qwen Code's name and argument names (``description``, ``prompt``, ``subagent_type``), so prompts and
agent files written for it work. The subagent is a fresh conversation: the agent file's system prompt,
its own tool list (never wider than what the parent may use), its own request budget, none of the
parent's messages. Whatever it reads stays in its window; the parent's window pays for the report.

The tool knows nothing of how a subagent is built: the composition root hands it ``spawn`` (which builds
and runs one) and the agents it may name. So app/core stays free of the files and settings above it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from app.core.tools.arguments import required_text
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.dataclass import dataclass

TOOL_NAME = "agent"


@dataclass(frozen=True)
class AgentSpec:
    """One agent a task can be delegated to: from a built-in, the user's config dir or a trusted project."""

    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None  # None: every tool the parent has (but this one)
    source: str = "built-in"
    max_requests: int = 30


@dataclass(frozen=True)
class SubagentReport:
    """What a delegation returned, and what it cost: tokens in its own window against the report's size."""

    text: str
    requests: int = 0
    window_tokens: int = 0  # the largest prompt the subagent sent (its own window at its fullest)
    failure: str = ""


Spawn = Callable[[AgentSpec, str, ToolContext], Awaitable[SubagentReport]]


class AgentTool(Tool):
    name = TOOL_NAME
    kind = ToolKind.READ  # it only talks; each call the subagent makes is judged by its own policy
    parameters = {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A short (3-5 word) description of the task."},
            "prompt": {"type": "string", "description": "The task for the agent to perform, with everything it needs to know."},
            "subagent_type": {"type": "string", "description": "The name of the agent to use."},
        },
        "required": ["description", "prompt", "subagent_type"],
    }

    def __init__(self, agents: Sequence[AgentSpec], spawn: Spawn) -> None:
        self.agents = {spec.name: spec for spec in agents}
        self.spawn = spawn
        listed = "\n".join(f"- {spec.name}: {spec.description}" for spec in agents)
        self.description = (
            "Launch a subagent to handle a task on its own, in a fresh context window: it cannot see this "
            "conversation, so give it every detail it needs in `prompt`. Only its final report comes back, so "
            "delegate searches and reading that would otherwise fill this conversation. Several calls in one "
            f"reply run one after another.\n\nAvailable agents (subagent_type):\n{listed}"
        )

    def summarize(self, args: dict[str, Any]) -> str:
        return f"agent {args.get('subagent_type', '?')}: {str(args.get('description', '')).strip()[:80]}"

    def subject(self, args: dict[str, Any]) -> str:
        return str(args.get("subagent_type", ""))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        prompt = required_text(args, "prompt", allow_empty=False)
        required_text(args, "description", allow_empty=False)
        name = required_text(args, "subagent_type", allow_empty=False)
        spec = self.agents.get(name)
        if spec is None:
            raise ToolError(f"no agent named {name!r}; available: {', '.join(self.agents) or 'none'}")
        report = await self.spawn(spec, prompt, ctx)
        if report.failure and not report.text:
            return ToolResult(output=f"The {name} agent did not finish: {report.failure}", is_error=True, summary="failed")
        note = f"\n\n(The {name} agent stopped early: {report.failure})" if report.failure else ""
        summary = f"{report.requests} requests, {report.window_tokens:,} tokens in its window"
        return ToolResult(output=(report.text.strip() or "(the agent reported nothing)") + note, summary=summary)
