"""Rewinding the conversation to just before one of the person's earlier messages.

Nothing is deleted: a ``rewind`` system record names the message (its place among the
view's user messages and a hash of its text), and the view, live and on resume, drops
that message and everything after it. The next message continues on that branch.

The place is counted among user messages, not all messages, because resuming repairs
an interrupted turn with messages the record does not hold; user messages are never
added or changed by the repairs or by micro-compaction.
"""

from __future__ import annotations

import hashlib
from app.dataclass import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from app.core.history import Message
from app.core.session.preview import one_line_preview

if TYPE_CHECKING:
    from app.core.session.records import Record



class LoadedSession(Protocol):
    """What a rewind reads of a session file read back (app.core.session.resume.LoadedSession, which
    imports this module to replay a rewind: a protocol here keeps the two out of a cycle)."""

    records: list[Record]
    messages: list[Message]


# User-role messages the app writes itself (a compaction summary, reminders) are no place to go back to.
_NOT_TYPED = ("<state_snapshot>", "<system-reminder>")


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def typed_by_person(message: Message) -> bool:
    return message.role == "user" and not message.content.lstrip().startswith(_NOT_TYPED)


@dataclass
class RewindPoint:
    """A message one can rewind to: the view goes back to just before it."""

    ordinal: int  # its place among the view's user messages (what the branch record names)
    index: int  # its place in the history
    text: str
    timestamp: str | None = None  # from its record; None when the record does not hold it
    uuid: str | None = None

    @property
    def preview(self) -> str:
        return one_line_preview(self.text)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {"userOrdinal": self.ordinal, "userSha256": text_sha256(self.text), "preview": self.preview[:200]}
        if self.uuid:
            data["userUuid"] = self.uuid
        return data


def user_records(loaded: LoadedSession) -> list[Record | None]:
    """The record of each user message of the loaded view, in order (None for one built on load, e.g. a summary)."""
    by_message = {id(r.message): r for r in loaded.records if r.type == "user" and r.message is not None}
    return [by_message.get(id(m)) for m in loaded.messages if m.role == "user"]


def rewind_points(history: list[Message], loaded: LoadedSession | None = None) -> list[RewindPoint]:
    """The person's messages in ``history``, newest first; times and uuids from ``loaded`` where it agrees.

    ``loaded`` is the session file read back: its view has the same user messages as the live
    history unless a record write failed, so each is matched by place and checked by text.
    """
    records = user_records(loaded) if loaded is not None else []
    points: list[RewindPoint] = []
    ordinal = -1
    for index, message in enumerate(history):
        if message.role != "user":
            continue
        ordinal += 1
        if not typed_by_person(message):
            continue
        record = records[ordinal] if ordinal < len(records) else None
        if record is not None and (record.message is None or record.message.content != message.content):
            record = None
        points.append(
            RewindPoint(
                ordinal=ordinal,
                index=index,
                text=message.content,
                timestamp=record.timestamp if record else None,
                uuid=record.uuid if record else None,
            )
        )
    points.reverse()
    return points


def rewound(messages: list[Message], payload: dict[str, Any]) -> list[Message] | None:
    """The view a rewind record leaves (the messages before the one it names); None when it names none of them."""
    ordinal, digest = payload.get("userOrdinal"), payload.get("userSha256")
    if not isinstance(ordinal, int) or isinstance(ordinal, bool) or not isinstance(digest, str):
        return None
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not 0 <= ordinal < len(users):
        return None
    index = users[ordinal]
    if text_sha256(messages[index].content) != digest:
        return None
    return messages[:index]
