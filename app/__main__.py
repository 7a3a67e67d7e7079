"""Command line: the TUI by default; ``-p`` for one headless turn; ``sessions`` subcommand.

Heavy modules (Textual, openai) are imported only on the path that needs them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from app import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SUBCOMMANDS = ("hooks", "sessions", "context", "skills", "memory", "trust", "untrust", "permissions", "mcp")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: {message}\n(run '{self.prog} --help' for the options)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agentctx-tui",
        description="A terminal coding agent that shows what enters the model's context window.",
        epilog="Subcommands: 'agentctx-tui sessions list|search|delete', 'agentctx-tui context [list|detail|map|json]', 'agentctx-tui skills list [--json]', 'agentctx-tui mcp list [--json]', 'agentctx-tui memory list|show|status|recall|forget|index|scan', 'agentctx-tui trust|untrust [PATH]', 'agentctx-tui permissions check TOOL(ARG) [--mode M] [--read-only] [--json]'. Model endpoint: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL or settings.yaml.",
    )
    parser.add_argument("-p", "--prompt", help="run one turn headless with this prompt and print the answer (stdin is appended when piped)")
    parser.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text", help="headless output (default: text)")
    parser.add_argument("--approval-mode", choices=("default", "auto-edit", "yolo", "plan"), help="default: ask for writes and shell; auto-edit: allow writes; yolo: allow all; plan: read-only tools only")
    parser.add_argument("-m", "--model", help="model name (overrides OPENAI_MODEL and settings)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-c", "--continue", dest="continue_latest", action="store_true", help="reopen the latest session of this project")
    group.add_argument("-r", "--resume", metavar="ID", help="reopen a session by id (or a unique prefix of it)")
    parser.add_argument("--append-system-prompt", metavar="TEXT", help="instructions appended to the system prompt (after the instruction files)")
    parser.add_argument("-C", "--cwd", type=Path, help="work in this directory instead of the current one")
    parser.add_argument("--version", action="version", version=f"agentctx-tui {__version__}")
    return parser


def _read_piped_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    try:
        return sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"agentctx-tui: could not read the prompt from stdin ({exc})", file=sys.stderr)
        return ""


def main(argv: Sequence[str] | None = None) -> int:
    """Every subcommand and headless turn writes through inert streams: nothing a model or a file says drives the terminal."""
    from app.inert import inert_output

    with inert_output():
        return _main(argv)


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sessions":
        from app.sessions_cli import sessions_command

        return sessions_command(argv[1:], _Parser)
    if argv and argv[0] == "hooks":
        from app.hooks_cli import hooks_command

        return hooks_command(argv[1:], _Parser)
    if argv and argv[0] == "skills":
        from app.skills_cli import skills_command

        return skills_command(argv[1:], _Parser)
    if argv and argv[0] == "memory":
        from app.memory_cli import memory_command

        return memory_command(argv[1:], _Parser)
    if argv and argv[0] in ("trust", "untrust"):
        from app.trust_cli import trust_command

        return trust_command(argv[0], argv[1:], _Parser)
    if argv and argv[0] == "permissions":
        from app.permissions_cli import permissions_command

        return permissions_command(argv[1:], _Parser)
    if argv and argv[0] == "mcp":
        from app.mcp_cli import mcp_command

        return mcp_command(argv[1:], _Parser)
    if argv and argv[0] == "context":
        from app.context_cli import context_command

        return context_command(argv[1:], _Parser)
    args = build_parser().parse_args(argv)

    from app.config import SettingsError, load_settings
    from app.paths import Paths

    cwd = args.cwd
    if cwd is not None and not cwd.is_dir():
        print(f"agentctx-tui: --cwd {cwd} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    paths = Paths.for_cwd(cwd)
    flags = {
        "model.name": args.model,
        "model.base_url": args.base_url,
        "approval_mode": args.approval_mode,
        "append_system_prompt": args.append_system_prompt,
    }
    try:
        settings = load_settings(paths, flags)
    except SettingsError as exc:
        print(f"agentctx-tui: settings error: {exc}", file=sys.stderr)
        return EXIT_USAGE

    stdin_text = "" if (args.prompt is None and sys.stdin is not None and sys.stdin.isatty()) else _read_piped_stdin()
    headless = args.prompt is not None or bool(stdin_text.strip())
    if headless:
        return _headless(args, settings, paths, stdin_text)

    from app.context.memory.scan import watch_scopes
    from app.tui.app import run_tui

    watch_scopes(True)  # an interactive session re-reads only the memory files that changed
    # The TUI draws its own screen, already inert, on the real streams.
    sys.stdout, sys.stderr = getattr(sys.stdout, "inner", sys.stdout), getattr(sys.stderr, "inner", sys.stderr)
    return run_tui(settings=settings, paths=paths, resume=args.resume, continue_latest=args.continue_latest)


def _headless(args: argparse.Namespace, settings, paths, stdin_text: str) -> int:  # type: ignore[no-untyped-def]
    prompt = "\n\n".join(part for part in (stdin_text.strip(), (args.prompt or "").strip()) if part)
    if not prompt:
        print("agentctx-tui: the prompt is empty (give -p \"...\" or pipe text on stdin)", file=sys.stderr)
        return EXIT_USAGE
    from app.core.session.listing import SessionNotFound
    from app.runtime import NO_ENDPOINT_MESSAGE, build_runtime

    if not settings.has_endpoint:
        print(f"agentctx-tui: {NO_ENDPOINT_MESSAGE}", file=sys.stderr)
        return EXIT_USAGE
    try:
        runtime = build_runtime(settings, paths, resume=args.resume, continue_latest=args.continue_latest, interactive=False)
    except SessionNotFound as exc:
        print(f"agentctx-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from app.headless import run

    return run(runtime, prompt, args.output_format)


if __name__ == "__main__":
    sys.exit(main())
