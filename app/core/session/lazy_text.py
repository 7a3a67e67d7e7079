"""Large tool results of a resumed session stay in the session file until something reads them.

A 500 MB record is mostly tool output (files read, command logs): 6,300 results of 16 KB or more hold
400 MB of it. Decoding them into Python strings on resume (JSON unescaping, 400 MB of fresh memory and
its page faults) was 0.3-0.4 s of the 1.3 s that loading took (bench/sessions.py's record, CPU time,
alternating runs), and none of them is needed to show the screen: the transcript mounts the last 40
entries, and a tool's output is shown only when expanded. So the reader leaves each such text where it
is (``SessionFileText``: the file, the offset and the length of its JSON string) and its message is a
``LazyToolResult``, which reads and decodes the text the first time ``content`` is asked for, then
becomes a plain ``Message`` again. The first request's assembly (and the context map's estimate, which
runs once the screen is drawn) reads them all, so memory ends where it did; only the wait before the
screen is shorter.

The session file is opened once for all of a load's texts and kept open while any of them is unread:
records are only ever appended, so the bytes stay where they were, and a file deleted meanwhile is still
readable through the open descriptor. Should the bytes read back not be the JSON string they were (a
file rewritten in place by something else, or damage inside the text), the text becomes a notice that
says so; before this, such damage made the reader skip the whole record.
"""

from __future__ import annotations

import json
import os
import re
import weakref
from dataclasses import fields
from pathlib import Path

import orjson

from app.core.history import Message

UNREADABLE_TEXT = (
    "[The output of this tool call could not be read back from the session record ({reason}); "
    "the record on disk is unchanged. Run the tool again if it is needed.]"
)
# Undecodable bytes come through "surrogateescape" as these code points (as in reader.py).
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


class _OpenFile:
    """One session file, open for reading texts back; closed when the last text that needs it is gone."""

    __slots__ = ("fd", "__weakref__")

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        weakref.finalize(self, os.close, self.fd)


class SessionFileText:
    """A JSON string in the session file, by place: read and decoded at most once, when first wanted."""

    __slots__ = ("_file", "_offset", "_length", "_text")

    def __init__(self, file: _OpenFile, offset: int, length: int) -> None:
        self._file: _OpenFile | None = file
        self._offset = offset  # of the opening quote
        self._length = length  # quotes included
        self._text: str | None = None

    def read(self) -> str:
        text = self._text
        if text is None:
            text = self._text = self._decode()
            self._file = None  # the descriptor closes once no unread text needs it
        return text

    def _decode(self) -> str:
        file = self._file
        assert file is not None
        try:
            raw = os.pread(file.fd, self._length, self._offset)
        except OSError as error:
            return UNREADABLE_TEXT.format(reason=error.strerror or str(error))
        if len(raw) != self._length or raw[:1] != b'"' or raw[-1:] != b'"':
            return UNREADABLE_TEXT.format(reason="the file changed where the text was")
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            # What orjson refuses goes through json, as the reader does (a lone surrogate escape is kept).
            decoded = raw.decode("utf-8", "surrogateescape")
            if not decoded.isascii() and _ESCAPED_BYTE.search(decoded):
                return UNREADABLE_TEXT.format(reason="not valid UTF-8")
            try:
                value = json.loads(decoded)
            except ValueError:
                return UNREADABLE_TEXT.format(reason="not a valid JSON string")
        return value if isinstance(value, str) else UNREADABLE_TEXT.format(reason="not a string")


def as_text(value: str | SessionFileText) -> str:
    return value if type(value) is str else value.read()  # type: ignore[union-attr]


_FIELD_NAMES = tuple(f.name for f in fields(Message))


class LazyToolResult(Message):
    """A resumed tool result whose text is still in the session file (see the module docstring).

    Reading ``content`` decodes it and turns the object into a plain ``Message`` holding the text,
    so nothing else ever sees the difference.
    """

    @property  # type: ignore[override]
    def content(self) -> str:
        value = self.__dict__["content"]
        if type(value) is str:
            return value
        text = value.read()
        self.__dict__["content"] = text
        self.__class__ = Message  # type: ignore[assignment]
        return text

    @content.setter
    def content(self, value: str | SessionFileText) -> None:
        self.__dict__["content"] = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _FIELD_NAMES)

    __hash__ = None  # type: ignore[assignment]


def stored_content(message: Message) -> str | SessionFileText:
    """The message's text as it is held: a ``SessionFileText`` is not read."""
    return message.__dict__["content"]


def hold_content(message: Message, value: str | SessionFileText) -> None:
    """Give ``message`` this text, left unread when it is a ``SessionFileText``."""
    if type(value) is not str and type(message) is Message:
        message.__class__ = LazyToolResult
    message.content = value  # type: ignore[assignment]


def is_unread(message: Message) -> bool:
    return type(message) is LazyToolResult and type(message.__dict__["content"]) is not str


def open_for_texts(path: Path) -> _OpenFile:
    return _OpenFile(path)
