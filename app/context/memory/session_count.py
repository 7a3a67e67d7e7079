"""Counting the sessions recorded since the last dream (one of the dream's gates)."""

from __future__ import annotations

import os
import re
from pathlib import Path

SESSION_FILE = re.compile(r"^[0-9a-fA-F-]{32,36}\.jsonl$")


def count_sessions_since(chats_dir: Path, since: float | None, current_session_id: str | None) -> int:
    """Session transcripts modified after ``since`` (all of them when None), the current one left out."""
    try:
        listing = list(os.scandir(chats_dir))
    except OSError:
        return 0
    count = 0
    for item in listing:
        if not SESSION_FILE.match(item.name) or item.name == f"{current_session_id}.jsonl":
            continue
        try:
            mtime = item.stat().st_mtime
        except OSError:
            continue
        if since is None or mtime > since:
            count += 1
    return count
