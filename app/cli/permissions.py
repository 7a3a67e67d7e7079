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
    from app.core.tools.permissions import PermissionPolicy
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
    if read_only:
        return {"decision": "deny" if refusal else "allow", "read_only": refusal is None, "reason": refusal or "in the read-only class"}
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
    return {"decision": decision.value, "read_only": refusal is None, "reason": reason}


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


def rules_report(settings: Settings, policy: PermissionPolicy, *, folder_trusted: bool) -> str:
    """/permissions: the mode and every active rule, each with where it came from."""
    sources = settings.permission_sources
    mode = getattr(policy.mode, "value", policy.mode)
    lines = [
        f"Approval mode: {mode}" + (f" (from {sources['approval_mode']})" if "approval_mode" in sources else " (the built-in default)"),
        f"This folder: {'trusted (its project layer applies)' if folder_trusted else 'not trusted (its project layer is ignored; /trust to change)'}",
        "Deny beats ask beats allow; a rule on a command matches every command of a pipeline or list.",
    ]
    for kind, title in (("deny", "Deny rules"), ("ask", "Ask rules"), ("allow", "Allow rules")):
        rules = getattr(settings.permissions, kind)
        lines += ["", title]
        origin = sources.get(kind, "settings")
        lines += [f"  {rule}    ← {origin}" for rule in rules] or ["  (none)"]
    lines += ["", 'Session "always" answers']
    lines += [f"  {rule}    ← your answer in this session" for rule in policy.session_rules] or ["  (none)"]
    grants = getattr(policy, "grants", [])
    lines += ["", "Skill grants (while the skill is loaded, this turn)"]
    lines += [f'  {rule}    ← the "{grant.skill}" skill ({grant.level.value}), read-only calls only unless yours or trusted' for grant in grants for rule in grant.rules] or ["  (none)"]
    lines += ["", "Added by the program"]
    if policy.extra_allow:
        tools = sorted({rule.tool for rule in policy.extra_allow})
        lines.append(f"  allow {', '.join(tools)} inside the project and user memory directories")
    lines += [f"  always ask {rule}    ← team memory is committed to the repository" for rule in policy.always_ask]
    if not policy.extra_allow and not policy.always_ask:
        lines.append("  (none)")
    return "\n".join(lines)
