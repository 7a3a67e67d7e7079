"""`agentctx-tui context parts|drop|pin|unpin|restore ID --session ID`: hand edits of a stored session's view.

Parsed by ``app/cli/context.py`` (the same ``context`` command: its first word picks a report or an edit).

``FIRST..LAST`` names a range of parts (old turns at once), both ends included.

The same edits as the context map's keys: each is a ``view_edit`` record appended to the
session file, so the next ``--resume`` (or ``-p --resume``) sends the edited view. A
session open in a running TUI does not see an edit made here until it is resumed again.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.exit_codes import EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    from app import __version__
    from app.context.compaction.pairing import repair_tool_pairs
    from app.context.view_edits import SUBTYPE_VIEW_EDIT, ViewEdits, commit, range_ids, view_parts
    from app.core.session.listing import SessionNotFound, find_session, latest_session
    from app.core.session.recorder import SessionRecorder
    from app.core.session.resume import load_session
    from app.paths import Paths

    paths = Paths.for_cwd(args.cwd)
    try:
        summary = find_session(paths.chats_dir, args.session) if args.session else latest_session(paths.chats_dir)
    except SessionNotFound as exc:
        print(f"agentctx-tui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if summary is None:
        print(f"agentctx-tui: no session in {paths.chats_dir} yet; start one, or name it with --session ID", file=sys.stderr)
        return EXIT_USAGE
    loaded = load_session(summary.path)
    edits = ViewEdits.replay(r.system_payload for r in loaded.records if r.subtype == SUBTYPE_VIEW_EDIT)
    parts = view_parts(loaded.messages, edits)
    if args.mode == "parts":
        for part in parts:
            state = f" [{part.state}]" if part.state else ""
            print(f"{part.id:<18} {part.name:<22} {part.chars:>8,} chars{state}  {part.preview}")
        return EXIT_OK
    if not args.ids:
        print(f"agentctx-tui: context {args.mode} needs a part id; 'agentctx-tui context parts --session {summary.session_id}' lists them", file=sys.stderr)
        return EXIT_USAGE
    known = {part.id for part in parts}
    wanted: list[str] = []
    unknown: list[str] = []
    for item in args.ids:
        first, dots, last = item.partition("..")
        found = range_ids(repair_tool_pairs(loaded.messages).messages, first, last) if dots else [item] if item in known else []
        if found:
            wanted.extend(found)
        else:
            unknown.append(item)
    if unknown:
        print(
            f"agentctx-tui: no part {', '.join(unknown)} in session {summary.session_id}; "
            f"'agentctx-tui context parts --session {summary.session_id}' lists them",
            file=sys.stderr,
        )
        return EXIT_USAGE
    recorder = SessionRecorder.resume(summary.path, cwd=paths.cwd, version=__version__)
    for part_id in dict.fromkeys(wanted):
        commit(edits, recorder, args.mode, part_id)
        print(f"{args.mode}: {part_id} ({edits.state_of(part_id) or 'as recorded'}) in session {summary.session_id}")
    return EXIT_OK
