"""`agentctx-tui sessions list|search|delete`: the session picker's listing, search and delete."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.cli.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sessions", help="list, search or delete this project's sessions", description="Sessions recorded for this project.")
    parser.set_defaults(run=run)
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="newest first, with title, size and git branch")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("-n", "--limit", type=int, default=20)
    listing.add_argument("-C", "--cwd", type=Path)
    search = sub.add_parser("search", help="sessions whose title, first prompt or dialog contains TEXT")
    search.add_argument("text")
    search.add_argument("--json", action="store_true")
    search.add_argument("-n", "--limit", type=int, default=50)
    search.add_argument("-C", "--cwd", type=Path)
    delete = sub.add_parser("delete", help="delete a session (shows what would go unless --yes)")
    delete.add_argument("id", help="the session id or a unique prefix of it")
    delete.add_argument("--yes", action="store_true", help="really delete it")
    delete.add_argument("-C", "--cwd", type=Path)


def run(args: argparse.Namespace) -> int:
    from app.paths import Paths

    paths = Paths.for_cwd(args.cwd)
    if args.action == "list":
        return _list(paths.chats_dir, paths.project_root, args.limit, args.json)
    if args.action == "search":
        return _search(paths.chats_dir, args.text, args.limit, args.json)
    return _delete(paths.chats_dir, args.id, args.yes)


def _row(summary: Any) -> dict[str, Any]:
    return {
        "session_id": summary.session_id,
        "title": summary.title,
        "title_source": summary.title_source,
        "first_prompt": summary.first_prompt,
        "started_at": summary.started_at,
        "updated_at": summary.updated_at,
        "size": summary.size,
        "git_branch": summary.git_branch,
        "path": str(summary.path),
    }


def _line(summary: Any) -> str:
    from app.core.session.display import human_size, local_time

    branch = summary.git_branch or "-"
    return f"{summary.session_id}  {local_time(summary.updated_at)}  {human_size(summary.size):>8}  {branch:<14}  {summary.label or '(no prompt)'}"


def _dump(rows: list[dict[str, Any]]) -> None:
    print(json.dumps(rows, ensure_ascii=False, indent=2, default=str))


def _list(chats_dir: Path, project_root: Path, limit: int, as_json: bool) -> int:
    from app.core.session.listing import list_sessions

    sessions = list_sessions(chats_dir, limit=limit)
    if as_json:
        _dump([_row(s) for s in sessions])
        return EXIT_OK
    if not sessions:
        print(f"No sessions recorded for {project_root} yet.")
        return EXIT_OK
    for summary in sessions:
        print(_line(summary))
    return EXIT_OK


def _search(chats_dir: Path, text: str, limit: int, as_json: bool) -> int:
    from app.core.session.search import search_sessions

    if not text.strip():
        print("agentctx-tui: give the text to search for", file=sys.stderr)
        return EXIT_USAGE
    hits = []
    for hit in search_sessions(chats_dir, text):
        hits.append(hit)
        if len(hits) >= limit:
            break
    if as_json:
        _dump([{**_row(h.summary), "match": {"where": h.where, "snippet": h.snippet}} for h in hits])
        return EXIT_OK
    if not hits:
        print(f"No session mentions “{text}”.")
        return EXIT_OK
    for hit in hits:
        print(_line(hit.summary))
        print(f"    {hit.where}: {hit.snippet}")
    return EXIT_OK


def _delete(chats_dir: Path, session: str, confirmed: bool) -> int:
    from app.core.session.delete import delete_session, session_files_to_delete
    from app.core.session.display import human_size, local_time
    from app.core.session.listing import SessionNotFound, find_session

    try:
        summary = find_session(chats_dir, session)
    except SessionNotFound as exc:
        print(f"agentctx-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    files = session_files_to_delete(summary.path)
    name = summary.label or "(no prompt)"
    print(f"Session {summary.session_id}: “{name}”, {human_size(summary.size)}, last written {local_time(summary.updated_at)}.")
    if not confirmed:
        print("Would delete:")
        for path in files:
            print(f"  {path}")
        print("Nothing was deleted; run again with --yes to delete it.")
        return EXIT_OK
    try:
        removed = delete_session(summary.path)
    except OSError as exc:
        print(f"agentctx-tui: could not delete the session: {exc}", file=sys.stderr)
        return EXIT_FAILED
    for path in removed:
        print(f"Deleted {path}")
    return EXIT_OK
