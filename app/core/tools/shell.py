"""run_shell_command: a bash command in the workspace root.

A non-zero exit status is not a tool error: the output and ``exit code N`` go
back to the model as an ordinary result (summary ``exit N``), because a failing
test run or a grep without matches is information the model acts on. Errors
(is_error=True) are reserved for the command not completing: refused in
read-only mode, bad arguments, or timed out.
"""

from __future__ import annotations

import os
import shutil
import signal
from typing import TYPE_CHECKING, Any

from app.core.tools.arguments import float_arg, required_text, shown_arg, text_arg
from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.errors import ToolError
from app.core.tools.text import clip_middle

# The bash grammar (read-only check) and the process runner load when a command runs, not
# when the tool is offered to the model.
if TYPE_CHECKING:
    from app.core.tools.sandbox import Confinement
    from app.core.tools.shell_runner import CommandOutcome

# A call may ask for more time than the configured timeout, up to this many times it.
MAX_TIMEOUT_FACTOR = 5
SUMMARY_CHARS = 120


class ShellTool(Tool):
    name = "run_shell_command"
    description = (
        "Run a bash command in the workspace root and return its combined stdout and stderr "
        "followed by the exit code. stdin is empty, so interactive programs cannot be used. "
        "Long output is shortened in the middle. Use timeout (seconds) for slow commands."
    )
    kind = ToolKind.EXECUTE
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command line to run."},
            "timeout": {"type": "number", "description": "Seconds before the command is stopped."},
            "description": {
                "type": "string",
                "description": "A few words on what the command does, shown to the user.",
            },
        },
        "required": ["command"],
    }

    def summarize(self, args: dict[str, Any]) -> str:
        command = shown_arg(args, "command").strip()
        first_line, _, rest = command.partition("\n")
        if rest or len(first_line) > SUMMARY_CHARS:
            first_line = first_line[:SUMMARY_CHARS].rstrip() + " …"
        return f"$ {first_line}"

    def subject(self, args: dict[str, Any]) -> str:
        return shown_arg(args, "command").strip()

    def detail(self, args: dict[str, Any], ctx: ToolContext) -> str:
        text = f"$ {shown_arg(args, 'command').strip()}"
        description = args.get("description")
        if isinstance(description, str) and description.strip():
            text += f"\n\n{description.strip()}"
        return text

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = required_text(args, "command", allow_empty=False)
        text_arg(args, "description", required=False)  # validated only; it is for the person
        timeout = effective_timeout(float_arg(args, "timeout"), ctx.shell_timeout)
        from app.core.tools.shell_env import command_environment
        from app.core.tools.shell_readonly import read_only_refusal
        from app.core.tools.shell_runner import run_command

        env = command_environment(os.environ, unasked=ctx.read_only_shell)
        reason = read_only_refusal(command, roots=[ctx.root], cwd=ctx.root)
        if ctx.read_only_shell and reason:
            raise ToolError(f"refused: only read-only commands may run now, and {reason}")
        if reason is None:
            from app.core.tools.git_guard import read_only_environment

            # A read-only command may run unasked (speculation, memory agents, a skill's grant), so the
            # repository's git config may not name a program its git runs. It is the same output.
            env = read_only_environment(env, ctx.root)
        # Unasked, it runs in the OS sandbox too: the parser is not all that stands in the way.
        confinement = _confinement(ctx.sandbox) if ctx.read_only_shell else None
        if confinement is not None:
            env = confinement.environment(env)
        # Four bytes per character at most: each kept end holds more than clip_middle keeps of it.
        keep = 4 * ctx.output_limit if ctx.output_limit > 0 else None
        try:
            outcome = await run_command(command, ctx.root, timeout, keep_bytes=keep, env=env, confinement=confinement)
        finally:
            if confinement is not None:
                shutil.rmtree(confinement.temp_dir, ignore_errors=True)
        return _result(outcome, timeout, ctx.output_limit)


def _confinement(mode: str) -> Confinement | None:
    """The sandbox for a command that runs unasked; None with ``sandbox: off``; refused where none exists."""
    if mode == "off":
        return None
    from app.core.tools.sandbox import Confinement, sandbox_status

    status = sandbox_status()
    if not status.available:
        raise ToolError(f"refused: this command would run without the user's approval, and {status.describe()}")
    return Confinement.create()


def effective_timeout(requested: float | None, configured: float) -> float:
    if requested is None:
        return configured
    if requested <= 0:
        raise ToolError(f"timeout must be a positive number of seconds, got {requested:g}")
    return min(requested, configured * MAX_TIMEOUT_FACTOR)


def _result(outcome: CommandOutcome, timeout: float, limit: int) -> ToolResult:
    body = clip_middle(outcome.output.rstrip("\n"), limit, omitted=outcome.omitted_chars) or "(no output)"
    notes: list[str] = []
    if outcome.stopped_background:
        notes.append("background processes still holding the output were stopped")
    if outcome.timed_out:
        notes.append(f"timed out after {timeout:g} s; the command and its children were killed")
        return ToolResult(output="\n".join([body, *notes]), is_error=True, summary=f"timed out after {timeout:g} s")
    code = outcome.exit_code if outcome.exit_code is not None else -1
    notes.append(f"exit code {code}{_signal_note(code)}")
    return ToolResult(output="\n".join([body, *notes]), summary=f"exit {code}")


def _signal_note(code: int) -> str:
    if code >= 0:
        return ""
    try:
        return f" (killed by {signal.Signals(-code).name})"
    except ValueError:
        return ""
