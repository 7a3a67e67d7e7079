"""Which of the agent's shell commands change what the git snapshot shows (branch, status, commits)."""

from __future__ import annotations

import re

from app.core.history import ToolCall

SHELL_TOOL = "run_shell_command"
# Subcommands that move HEAD, the index or the working tree. Global options (-C dir, -c k=v) may come first.
_CHANGES = re.compile(
    r"(?:^|[\s;&|(`$])git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+"
    r"(?:commit|checkout|switch|merge|rebase|reset|add|rm|mv|stash|pull|cherry-pick|revert|restore|am|apply|clean|branch|tag|init|worktree)\b"
)


def changes_git(call: ToolCall) -> bool:
    if call.name != SHELL_TOOL:
        return False
    try:
        command = call.parsed_arguments().get("command")
    except ValueError:
        return False
    return isinstance(command, str) and _CHANGES.search(command) is not None
