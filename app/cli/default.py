"""The command without a subcommand: the TUI, or one headless turn with ``-p`` or text piped on stdin.

The TUI (Textual) is imported only when it is the one that runs; a headless turn never loads it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app import __version__
from app.cli.exit_codes import EXIT_USAGE


def add_arguments(parser: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace) -> int:
    from app.cli.settings import settings_for
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
    settings = settings_for(paths, flags)

    stdin_text = "" if (args.prompt is None and sys.stdin is not None and sys.stdin.isatty()) else _read_piped_stdin()
    if args.prompt is not None or bool(stdin_text.strip()):
        return _headless(args, settings, paths, stdin_text)

    from app.tui.launch import run_tui

    # The TUI draws its own screen, already inert, on the real streams.
    sys.stdout, sys.stderr = getattr(sys.stdout, "inner", sys.stdout), getattr(sys.stderr, "inner", sys.stderr)
    return run_tui(settings=settings, paths=paths, resume=args.resume, continue_latest=args.continue_latest)


def _read_piped_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    buffer = getattr(sys.stdin, "buffer", None)
    try:
        if buffer is None:  # a replaced text stream (tests, embedding): already text
            return sys.stdin.read()
        data = buffer.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"agentctx-tui: could not read the prompt from stdin ({exc})", file=sys.stderr)
        return ""
    return decode_stdin(data)


def decode_stdin(data: bytes) -> str:
    """Piped input as text: UTF-8 whatever the locale says, an invalid byte replaced by U+FFFD (and
    said on stderr) rather than carried as a surrogate that no request or record could encode."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        count = text.count("\ufffd") - data.decode("utf-8", "ignore").count("\ufffd")
        print(
            f"agentctx-tui: stdin is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"{count} undecodable {'sequence was' if count == 1 else 'sequences were'} replaced with U+FFFD",
            file=sys.stderr,
        )
        return text


def _headless(args: argparse.Namespace, settings, paths, stdin_text: str) -> int:  # type: ignore[no-untyped-def]
    from app.core.undecodable import escape

    # An argument that is not UTF-8 arrives surrogate-escaped: its odd bytes become \xNN, as in file names.
    prompt = "\n\n".join(part for part in (stdin_text.strip(), escape(args.prompt or "").strip()) if part)
    if not prompt:
        print("agentctx-tui: the prompt is empty (give -p \"...\" or pipe text on stdin)", file=sys.stderr)
        return EXIT_USAGE
    from app.runtime import NO_ENDPOINT_MESSAGE, build_runtime

    if not settings.has_endpoint:
        print(f"agentctx-tui: {NO_ENDPOINT_MESSAGE}", file=sys.stderr)
        return EXIT_USAGE
    # The session listing is read only to reopen a session: a new session's turn never imports it.
    not_found: tuple[type[Exception], ...] = ()
    if args.resume or args.continue_latest:
        from app.core.session.listing import SessionNotFound

        not_found = (SessionNotFound,)
    try:
        runtime = build_runtime(settings, paths, resume=args.resume, continue_latest=args.continue_latest, interactive=False)
    except not_found as exc:
        print(f"agentctx-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from app import heap

    heap.loaded()  # what start-up built lives as long as the process; the turn's objects are collected as usual
    from app.cli.headless import run as run_turn

    return run_turn(runtime, prompt, args.output_format)
