"""Appending records to a session's JSONL file as the conversation happens.

Each append is one complete line written in a single call, so a crash can at
worst leave the last line torn, never interleave two records.
"""

from __future__ import annotations

import os
import re
import uuid as uuidlib
from pathlib import Path
from typing import Any

from app.core.history import Message, Usage
from app.core.session.reader import ends_with_newline, last_valid_record
from app.core.session.records import Record, now_timestamp, record_type_for
from app.paths import ensure_private_dir

SESSION_FILE_SUFFIX = ".jsonl"
SESSION_ID_PATTERN = re.compile(r"^[0-9a-fA-F-]{32,36}$")
# Session files hold prompts and file contents: readable by the user only.
_FILE_MODE = 0o600


def new_session_id() -> str:
    return str(uuidlib.uuid4())


def check_session_id(session_id: str) -> str:
    """The id itself, if it is one the session listing will recognise."""
    if not SESSION_ID_PATTERN.match(session_id):
        raise ValueError(f"{session_id!r} is not a session id (expected a UUID)")
    return session_id


class SessionRecorder:
    """Writes one session's records; the file appears only with the first record."""

    def __init__(
        self,
        chats_dir: Path,
        *,
        session_id: str | None = None,
        cwd: Path,
        version: str,
        git_branch: str | None = None,
    ) -> None:
        self._chats_dir = chats_dir
        self._session_id = check_session_id(session_id) if session_id else new_session_id()
        self._cwd = str(cwd)
        self._version = version
        self._git_branch = git_branch
        self._last_uuid: str | None = None
        # Checked once, on the first append: an earlier process may have died mid-line.
        self._tail_checked = False

    @classmethod
    def resume(cls, path: Path, *, cwd: Path, version: str, git_branch: str | None = None) -> SessionRecorder:
        """Continue an existing session file, chaining onto its last valid record."""
        if path.suffix != SESSION_FILE_SUFFIX:
            raise ValueError(f"{path} is not a session file (expected a {SESSION_FILE_SUFFIX} file)")
        if not path.is_file():
            raise FileNotFoundError(f"session file {path} does not exist")
        recorder = cls(path.parent, session_id=path.stem, cwd=cwd, version=version, git_branch=git_branch)
        last = last_valid_record(path)
        recorder._last_uuid = last.uuid if last else None
        return recorder

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def path(self) -> Path:
        return self._chats_dir / f"{self._session_id}{SESSION_FILE_SUFFIX}"

    @property
    def last_uuid(self) -> str | None:
        return self._last_uuid

    def append_message(
        self,
        message: Message,
        *,
        usage: Usage | None = None,
        model: str | None = None,
        durable: bool = False,
    ) -> Record:
        """Record a conversation message; ``durable`` also forces it to disk (fsync)."""
        record = self._new_record(record_type_for(message), message=message, usage=usage, model=model)
        self._write(record, durable=durable)
        return record

    def append_system(self, subtype: str, payload: dict[str, Any]) -> Record:
        """Record an event that is not a message, e.g. a compression checkpoint."""
        record = self._new_record("system", subtype=subtype, system_payload=payload)
        self._write(record, durable=False)
        return record

    def _new_record(self, record_type: str, **fields: Any) -> Record:
        return Record(
            uuid=str(uuidlib.uuid4()),
            parent_uuid=self._last_uuid,
            session_id=self._session_id,
            timestamp=now_timestamp(),
            type=record_type,  # type: ignore[arg-type]
            cwd=self._cwd,
            version=self._version,
            git_branch=self._git_branch,
            **fields,
        )

    def _write(self, record: Record, *, durable: bool) -> None:
        data = record.to_json_line().encode("utf-8")
        if not self._tail_checked:
            data = self._newline_if_torn() + data
        ensure_private_dir(self._chats_dir)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _FILE_MODE)
        with os.fdopen(fd, "ab") as handle:
            handle.write(data)  # one call: a record and its separator are never split
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        self._tail_checked = True
        self._last_uuid = record.uuid

    def _newline_if_torn(self) -> bytes:
        """A newline to end a torn last line, so the next record starts on its own line."""
        if self.path.exists() and not ends_with_newline(self.path):
            return b"\n"
        return b""
