"""`agentctx-tui permissions check 'TOOL(ARG)'`: the decision the program would take for one call.

Under the current settings (user + trusted project layer + flags), with the real tool
registry and permission policy, so a user (or a test) can check a rule before relying on it.
``--read-only`` answers with the read-only class instead: the commands the memory agents
and speculative turns may run without asking.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.config import Settings
    from app.core.tools.base import Tool
    from app.paths import Paths

from app.cli.exit_codes import EXIT_OK, EXIT_USAGE

MODES = ("default", "auto-edit", "yolo", "plan")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("permissions", help="check what the permission rules decide for one call", description="Check what the permission rules decide.")
    parser.set_defaults(run=run)
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="the decision for one call, e.g. 'run_shell_command(git status)' or 'write_file(src/a.py)'")
    check.add_argument("call", metavar="TOOL(ARG)")
    check.add_argument("--mode", choices=MODES, help="the approval mode (default: from settings)")
    check.add_argument("--read-only", action="store_true", help="answer with the read-only class (what may run unasked in the background)")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument("-C", "--cwd", type=Path)


def run(args: argparse.Namespace) -> int:
    from app.cli.settings import project_settings

    paths, settings = project_settings(args.cwd)
    try:
        verdict = check_call(args.call, settings, paths, mode=args.mode, read_only=args.read_only)
    except ValueError as error:
        print(f"agentctx-tui permissions: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(verdict, ensure_ascii=False))
    else:
        print(f"{verdict['decision']}: {verdict['reason']} (read-only class: {'yes' if verdict['read_only'] else 'no'})")
        print(verdict["sandbox"])
    return EXIT_OK


def check_call(call: str, settings: Settings, paths: Paths, *, mode: str | None = None, read_only: bool = False) -> dict[str, Any]:
    """``{"decision": "allow"|"ask"|"deny", "read_only": bool, "reason": str}`` for ``TOOL(ARG)``."""
    from app.core.tools.base import ToolKind
    from app.core.tools.permissions import ApprovalMode, PermissionPolicy
    from app.core.tools.registry import builtin_registry

    name, arg = parse_call(call)
    registry = builtin_registry()
    tool = registry.get(name)
    if tool is None:
        raise ValueError(f"unknown tool {name!r} (known: {', '.join(registry.names())})")
    args = {"command": arg} if tool.kind is ToolKind.EXECUTE else ({"path": arg} if arg else {})
    refusal = _read_only_refusal(tool, arg)
    from app.permissions_report import sandbox_line

    sandbox = sandbox_line(settings.shell.sandbox)
    if read_only:
        return {"decision": "deny" if refusal else "allow", "read_only": refusal is None, "reason": refusal or "in the read-only class", "sandbox": sandbox}
    policy = PermissionPolicy(
        allow=settings.permissions.allow,
        ask=settings.permissions.ask,
        deny=settings.permissions.deny,
        mode=ApprovalMode(mode or settings.approval_mode),
        root=paths.project_root,
    )
    from app.context.memory.paths import memory_paths
    from app.runtime import memory_permissions

    memory_permissions(policy, memory_paths(paths))  # the rules a session adds for its memory dirs
    decision, reason = policy.decide(tool, args)
    return {"decision": decision.value, "read_only": refusal is None, "reason": reason, "sandbox": sandbox}


def _read_only_refusal(tool: Tool, arg: str) -> str | None:
    from app.core.tools.base import ToolKind
    from app.core.tools.shell_readonly import read_only_refusal

    if tool.kind is ToolKind.READ:
        return None
    if tool.kind is ToolKind.EXECUTE:
        return read_only_refusal(arg)
    return f"{tool.name} changes files"


def parse_call(call: str) -> tuple[str, str]:
    """``run_shell_command(git status)`` -> ("run_shell_command", "git status"); a bare name has no argument."""
    text = call.strip()
    open_at = text.find("(")
    if open_at == -1:
        if not text:
            raise ValueError("give a call such as 'run_shell_command(git status)'")
        return text, ""
    if not text.endswith(")"):
        raise ValueError(f"{call!r} does not end with ')'; write TOOL(ARG), e.g. 'write_file(src/a.py)'")
    return text[:open_at].strip(), text[open_at + 1 : -1]
