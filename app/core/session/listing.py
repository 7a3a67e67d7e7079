"""Finding a project's saved sessions: listing, the latest one, lookup by id prefix.

Each session is summarised from the first lines of its file (first prompt, start)
and its last 64 KB (title, git branch), never from the whole file.
"""

from __future__ import annotations

import re
from app.dataclass import dataclass
from datetime import datetime, timezone
from pathlib import Path
from stat import S_ISREG

from app.core.session.head import read_head
from app.core.session.tail import read_tail

SESSION_FILE_PATTERN = re.compile(r"^[0-9a-fA-F-]{32,36}\.jsonl$")
MIN_PREFIX_CHARS = 4


class SessionNotFound(ValueError):
    """No session, or more than one, matches what the user typed."""


@dataclass
class SessionSummary:
    """One saved session as listings show it, read from its file's head and tail only."""

    session_id: str
    path: Path
    first_prompt: str
    started_at: datetime | None
    updated_at: datetime
    # Counted only when the whole file fits in the tail that is read anyway.
    message_count: int | None
    size: int = 0
    title: str | None = None
    title_source: str | None = None
    git_branch: str | None = None

    @property
    def label(self) -> str:
        """What to call the session: its title, else its first prompt."""
        return self.title or self.first_prompt


@dataclass
class SessionFile:
    """A session file in the chats directory, with the stat facts that order the listing."""

    path: Path
    mtime: float
    size: int

    @property
    def session_id(self) -> str:
        return self.path.stem


def list_sessions(chats_dir: Path, *, limit: int | None = None) -> list[SessionSummary]:
    """Saved sessions, most recently written first."""
    files = session_files(chats_dir)
    if limit is not None:
        files = files[: max(limit, 0)]
    summaries: list[SessionSummary] = []
    for item in files:
        try:
            summaries.append(summarize(item))
        except OSError:
            continue  # deleted or unreadable; the rest are still worth listing
    return summaries


def latest_session(chats_dir: Path) -> SessionSummary | None:
    found = list_sessions(chats_dir, limit=1)
    return found[0] if found else None


def find_session(chats_dir: Path, id_or_prefix: str) -> SessionSummary:
    """The session whose id is ``id_or_prefix`` or uniquely starts with it."""
    wanted = id_or_prefix.strip().lower()
    files = session_files(chats_dir)
    exact = [item for item in files if item.session_id.lower() == wanted]
    if exact:
        return summarize(exact[0])
    if len(wanted) < MIN_PREFIX_CHARS:
        raise SessionNotFound(
            f"no session matches {id_or_prefix!r} in {chats_dir}; give the full id or at least "
            f"{MIN_PREFIX_CHARS} of its first characters"
        )
    matches = [item for item in files if item.session_id.lower().startswith(wanted)]
    if not matches:
        raise SessionNotFound(f"no session matches {id_or_prefix!r} in {chats_dir}")
    if len(matches) > 1:
        raise SessionNotFound(f"{id_or_prefix!r} matches {len(matches)} sessions; give more characters")
    return summarize(matches[0])


def session_files(chats_dir: Path) -> list[SessionFile]:
    """Session files in the directory, newest first; anything else there is ignored."""
    if not chats_dir.is_dir():
        return []
    found: list[SessionFile] = []
    for path in chats_dir.iterdir():
        if not SESSION_FILE_PATTERN.match(path.name):
            continue
        try:
            stat = path.stat()
        except OSError:
            continue  # deleted while we looked
        if S_ISREG(stat.st_mode):  # a directory (or anything else) named like a session is not one
            found.append(SessionFile(path, stat.st_mtime, stat.st_size))
    # Name as the tie-breaker keeps the order stable when mtimes are equal.
    found.sort(key=lambda item: (item.mtime, item.path.name), reverse=True)
    return found


def summarize(item: SessionFile) -> SessionSummary:
    """One session file's summary; raises OSError when it cannot be read."""
    head = read_head(item.path)
    tail = read_tail(item.path)
    return SessionSummary(
        session_id=item.session_id,
        path=item.path,
        first_prompt=head.first_prompt,
        started_at=head.started_at,
        updated_at=datetime.fromtimestamp(item.mtime, tz=timezone.utc),
        message_count=tail.message_count,
        size=item.size,
        title=tail.title,
        title_source=tail.title_source,
        # The newest record says where the work is now; the first one is the fallback.
        git_branch=tail.git_branch or head.git_branch,
    )
