"""Appending records to a session's JSONL file as the conversation happens.

Each append is one complete line handed to the kernel in a single ``os.write``
on an O_APPEND descriptor. The write is synchronous code with no ``await`` in
it, so cancelling the task that records (quitting mid-turn) cannot stop it half
way: a crash can at worst leave the last line torn, never split or interleave
two records.

A write that fails (a full disk, a read-only or refused directory) leaves no trace
in the session file: a file this write created is removed, an existing one is cut
back to where it was. The records that could not be saved are appended to a rescue
file instead (app/core/session/rescue.py: the data directory's ``unsaved/``, else a private
directory in the temporary directory; merged back when the session is opened again), and ``RecordWriteError`` says both, in
words: "No space left on device while saving the session record to …; your message
is kept in …".
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.ids import uuid4
from app.core.history import Message, Usage
from app.core.session.dedupe import ContentIndex, content_key, worth_deduplicating
from app.core.session.records import (
    SUBTYPE_CUSTOM_TITLE,
    TITLE_SOURCE_AUTO,
    TITLE_SOURCE_MANUAL,
    Record,
    now_timestamp,
    record_type_for,
)
from app.core.session.tail import TITLE_REANCHOR_BYTES, read_tail
from app.paths import ensure_private_dir

if TYPE_CHECKING:  # a resumed record's large results (lazy_text.py reads them with orjson, when resuming)
    from app.core.session.lazy_text import SessionFileText

SESSION_FILE_SUFFIX = ".jsonl"
SESSION_ID_PATTERN = re.compile(r"^[0-9a-fA-F-]{32,36}$")
# Session files hold prompts and file contents: readable by the user only.
_FILE_MODE = 0o600


class RecordWriteError(OSError):
    """The session record could not be written; ``str()`` is the sentence the person reads."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(code, text)
        self.text = text

    def __str__(self) -> str:
        return self.text


def new_session_id() -> str:
    return uuid4()


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
        clock: Callable[[], str] = now_timestamp,
    ) -> None:
        self._chats_dir = chats_dir
        self._session_id = check_session_id(session_id) if session_id else new_session_id()
        self._cwd = str(cwd)
        self._version = version
        self._git_branch = git_branch
        self._clock = clock
        self._last_uuid: str | None = None
        # Checked once, on the first append: an earlier process may have died mid-line.
        self._tail_checked = False
        # Records asked to wait for the conversation (a /help typed in a fresh session
        # must not leave a session file behind); written just before the first other record.
        self._deferred: list[Record] = []
        self.title: str | None = None
        self.title_source: str | None = None
        self._since_title = 0
        self._contents = ContentIndex()

    @classmethod
    def resume(
        cls,
        path: Path,
        *,
        cwd: Path,
        version: str,
        git_branch: str | None = None,
        clock: Callable[[], str] = now_timestamp,
    ) -> SessionRecorder:
        """Continue an existing session file, chaining onto its last valid record."""
        if path.suffix != SESSION_FILE_SUFFIX:
            raise ValueError(f"{path} is not a session file (expected a {SESSION_FILE_SUFFIX} file)")
        if not path.is_file():
            raise FileNotFoundError(f"session file {path} does not exist")
        recorder = cls(path.parent, session_id=path.stem, cwd=cwd, version=version, git_branch=git_branch, clock=clock)
        from app.core.session.reader import last_valid_record  # the record reader (orjson): only to go on with a file

        last = last_valid_record(path)
        recorder._last_uuid = last.uuid if last else None
        tail = read_tail(path)
        if tail.title is not None:
            recorder.title, recorder.title_source = tail.title, tail.title_source
            recorder._since_title = tail.bytes_after_title or 0
        return recorder

    def adopt(self, *, title: str | None, title_source: str | None, large_results: dict[str, str | SessionFileText]) -> None:
        """Take over what a loaded session knows: its title and the large tool results already stored.

        The loaded session read the whole file, so its title wins over the one seen in the tail.
        """
        if title is not None and (title, title_source) != (self.title, self.title_source):
            self.title, self.title_source = title, title_source
            self._since_title = TITLE_REANCHOR_BYTES  # not where the tail can see it: anchor it on the next write
        self._contents.add_later(large_results)

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
        """Record a conversation message; ``durable`` also forces it to disk (fsync).

        A large tool result that repeats one already recorded is written as a
        reference to it; the returned record still carries the whole message.
        """
        record = self._new_record(record_type_for(message), message=message, usage=usage, model=model)
        key = None
        if message.role == "tool" and worth_deduplicating(message.content):
            key = content_key(message.content)
            record.content_ref = self._contents.holder(key)
        self._write(record, durable=durable)
        if key is not None and record.content_ref is None:
            self._contents.add(key, record.uuid)
        return record

    def append_system(self, subtype: str, payload: dict[str, Any], *, defer: bool = False) -> Record:
        """Record an event that is not a message, e.g. a compression checkpoint.

        ``defer``: while the session has no record yet, keep it until the first
        other record instead of creating the file for it.
        """
        record = self._new_record("system", subtype=subtype, system_payload=payload)
        self._write(record, durable=False, defer=defer)
        return record

    def append_title(self, title: str, source: str) -> Record | None:
        """Name the session; an automatic title never replaces a manual one (returns None then)."""
        if source == TITLE_SOURCE_AUTO and self.title_source == TITLE_SOURCE_MANUAL:
            return None
        self.title, self.title_source = title, source
        record = self._title_record()
        self._write(record, durable=False, defer=True)
        return record

    def _title_record(self) -> Record:
        return self._new_record(
            "system",
            subtype=SUBTYPE_CUSTOM_TITLE,
            system_payload={"customTitle": self.title, "titleSource": self.title_source},
        )

    def _new_record(self, record_type: str, **fields: Any) -> Record:
        record = Record(
            uuid=uuid4(),
            parent_uuid=self._last_uuid,
            session_id=self._session_id,
            timestamp=self._clock(),
            type=record_type,  # type: ignore[arg-type]
            cwd=self._cwd,
            version=self._version,
            git_branch=self._git_branch,
            **fields,
        )
        self._last_uuid = record.uuid
        return record

    def _write(self, record: Record, *, durable: bool, defer: bool = False) -> None:
        if defer and not self._deferred_started():
            self._deferred.append(record)
            return
        records, self._deferred = [*self._deferred, record], []
        data = b"".join(r.to_json_line().encode("utf-8") for r in records)
        if record.subtype == SUBTYPE_CUSTOM_TITLE:
            self._since_title = 0
        else:
            self._since_title += len(data)
            if self.title is not None and self._since_title >= TITLE_REANCHOR_BYTES:
                # The title again, in the same write, so the file's last 64 KB always hold it.
                data += self._title_record().to_json_line().encode("utf-8")
                self._since_title = 0
        try:
            if not self._tail_checked:
                data = self._newline_if_torn() + data
            self._append(data, durable=durable)
        except OSError as exc:
            # The next record chains onto the last one on disk, not onto these unsaved ones.
            self._last_uuid = records[0].parent_uuid
            raise self._failed(exc, records) from None
        self._tail_checked = True

    def _append(self, data: bytes, *, durable: bool) -> None:
        ensure_private_dir(self._chats_dir)
        existed = os.path.lexists(self.path)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _FILE_MODE)
        try:
            start = os.fstat(fd).st_size
            try:
                _write_all(fd, data)
                if durable:
                    os.fsync(fd)
            except OSError:
                # Nothing half-written stays: a new file goes, an old one is cut back to its last whole line.
                if not existed:
                    _quietly(os.unlink, self.path)
                else:
                    _quietly(os.ftruncate, fd, start)
                raise
        finally:
            os.close(fd)

    def _failed(self, exc: OSError, records: list[Record]) -> RecordWriteError:
        reason = exc.strerror or type(exc).__name__
        where = f"{reason} while saving the session record to {self.path}"
        kept = self._rescue(records)
        user = any(r.type == "user" for r in records)
        if kept is not None:
            what = "your message is kept in" if user else "what could not be saved is kept in"
            text = f"{where}; {what} {kept}. The session goes on; it is saved again once the disk takes it."
        else:
            text = f"{where}, and it could not be kept anywhere else either. The session goes on unsaved."
        return RecordWriteError(exc.errno or errno.EIO, text)

    def _rescue(self, records: list[Record]) -> Path | None:
        """Append the records to this session's rescue file; None when that fails too."""
        from app.core.session.rescue import keep

        return keep(self.path.name, b"".join(r.to_json_line().encode("utf-8") for r in records))

    def _deferred_started(self) -> bool:
        return self._tail_checked or self.path.exists()

    def _newline_if_torn(self) -> bytes:
        """A newline to end a torn last line, so the next record starts on its own line."""
        if not self.path.exists():
            return b""
        from app.core.session.reader import ends_with_newline

        if not ends_with_newline(self.path):
            return b"\n"
        return b""


def _quietly(action: Callable[..., object], *args: object) -> None:
    try:
        action(*args)
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    """One ``os.write`` for the whole line (records and separators together).

    A regular file takes it in one call; the loop only matters if the disk fills
    up part way, where the rest is still tried rather than silently dropped.
    """
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
