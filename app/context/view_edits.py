"""Hand edits of the view: parts of the conversation the person dropped, pinned or rewrote.

Like pruning, an edit changes only what is sent: the history and the record keep every
byte, and each edit is a ``view_edit`` system record, so a resumed session replays the
same edits onto the same history and sends the same view.

A part is one message of the history, named by a stable id: its kind and a hash of what
it says (role, text, tool call ids). The id needs no counter and no record uuid, so it is
the same after ``--resume`` and after a summary compaction re-attaches a pinned part
verbatim. Identical messages (two "yes" answers) share an id and are edited together.

A dropped part is not removed but replaced by a one-line placeholder: removing a message
would break the tool-call pairing and the alternation of roles servers insist on, and the
model is told that something was there. A pinned part is never cleared by micro-compaction
or pruning and is re-attached verbatim after a summary.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import field, replace
from app.dataclass import dataclass
from typing import Any

from app.core.history import Message, ToolCall
from app.core.session.records import SUBTYPE_VIEW_EDIT

__all__ = ["SUBTYPE_VIEW_EDIT", "ViewEdits", "ViewEditError", "cache_loss", "part_id"]
ACTIONS = ("drop", "restore", "pin", "unpin", "replace")
# Kind of part (app/core/request.message_kind) -> the word its id starts with.
ID_PREFIXES = {
    "user": "msg",
    "assistant": "reply",
    "tool_result": "tool",
    "summary": "summary",
    "recalled_memory": "memory",
    "reminder": "note",
    "skills_listing": "skills",
}
DROPPED = "[{kind} {id} was dropped from the context by the user; the session record keeps it.]"
PINNED_INTRO = "Parts the user pinned, kept verbatim through the compaction:"
PINNED_ACK = "Noted; the pinned parts above still apply."


class ViewEditError(ValueError):
    """An edit that cannot be made; the message says why and what to do."""


def part_id(message: Message) -> str:
    """The stable id of the part ``message`` is (see the module docstring)."""
    from app.core.request import message_kind

    digest = hashlib.sha1(usedforsecurity=False)
    for piece in (message.role, message.content, message.tool_call_id or "", *(c.id for c in message.tool_calls)):
        digest.update(piece.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return f"{ID_PREFIXES.get(message_kind(message), 'part')}-{digest.hexdigest()[:8]}"


@dataclass
class ViewEdits:
    """The edits in force: replayed in order from the records, applied to every view."""

    dropped: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    replaced: dict[str, str] = field(default_factory=dict)
    # Each message's id by object: hashing every message on every request cost 1.1-2.4 s for a 100 MB history
    # (20,000 messages, bench/view_edits.py at load 15 on 2 cores; 0.13-0.15 s with this cache); a message is
    # hashed once, and again only if its text is replaced.
    _ids: dict[int, tuple[Message, str, str]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def empty(self) -> bool:
        return not (self.dropped or self.pinned or self.replaced)

    # -- the rules ----------------------------------------------------------------------------

    def apply(self, action: str, part: str, text: str = "") -> dict[str, Any]:
        """Make one edit; returns its record payload. Dropping unpins, pinning restores, restore undoes a drop or a rewrite."""
        if action not in ACTIONS:
            raise ViewEditError(f"unknown view edit {action!r}; use one of {', '.join(ACTIONS)}")
        if action == "drop":
            self.dropped.add(part)
            self.pinned.discard(part)
        elif action == "restore":
            self.dropped.discard(part)
            self.replaced.pop(part, None)
        elif action == "pin":
            self.pinned.add(part)
            self.dropped.discard(part)
        elif action == "unpin":
            self.pinned.discard(part)
        else:
            if not text.strip():
                raise ViewEditError("the new text is empty; restore the part instead to send the original")
            self.replaced[part] = text
            self.dropped.discard(part)
        payload: dict[str, Any] = {"action": action, "part": part}
        if action == "replace":
            payload["text"] = text
        return payload

    @classmethod
    def replay(cls, payloads: Iterable[dict[str, Any] | None]) -> ViewEdits:
        """The edits of a session from its ``view_edit`` payloads, oldest first; malformed ones are skipped."""
        edits = cls()
        for payload in payloads:
            if not isinstance(payload, dict):
                continue
            action, part, text = payload.get("action"), payload.get("part"), payload.get("text", "")
            if not isinstance(part, str) or not isinstance(text, str):
                continue
            try:
                edits.apply(str(action), part, text)
            except ViewEditError:
                continue
        return edits

    def state_of(self, part: str) -> str:
        """"dropped", "pinned", "edited" or ""."""
        if part in self.dropped:
            return "dropped"
        if part in self.pinned:
            return "pinned"
        if part in self.replaced:
            return "edited"
        return ""

    # -- the view -----------------------------------------------------------------------------

    def edit_view(self, messages: list[Message]) -> tuple[list[Message], list[str]]:
        """The messages with the edits applied (copies where changed; same positions) and the id of each."""
        ids = self.ids_of(messages)
        if self.empty:
            return messages, ids
        out: list[Message] = []
        for message, pid in zip(messages, ids):
            if pid in self.dropped:
                message = dropped_copy(message, pid)
            elif pid in self.replaced:
                message = replace(message, content=self.replaced[pid], images=[])
            out.append(message)
        return out, ids

    def edited_calls(self, messages: list[Message]) -> frozenset[str]:
        """The call ids of tool results dropped or pinned (their files are not re-attached after a summary)."""
        if not (self.dropped or self.pinned):
            return frozenset()
        marked = self.dropped | self.pinned
        return frozenset(m.tool_call_id or "" for m in messages if m.role == "tool" and part_id(m) in marked)

    def ids_of(self, messages: list[Message]) -> list[str]:
        """``part_id`` of each message, from the cache when the same object with the same text was seen last time."""
        old, new = self._ids, {}
        out: list[str] = []
        for message in messages:
            hit = old.get(id(message))
            if hit is not None and hit[0] is message and hit[1] is message.content:
                pid = hit[2]
            else:
                pid = part_id(message)
            new[id(message)] = (message, message.content, pid)
            out.append(pid)
        self._ids = new  # only the messages of the latest view are kept alive
        return out

    def is_pinned(self, message: Message) -> bool:
        return bool(self.pinned) and part_id(message) in self.pinned

    def pinned_to_keep(self, summarized: list[Message]) -> list[Message]:
        """What of the summarized part is re-attached after a summary: each pinned message verbatim,
        a pinned tool result with the call that asked for it, and roles kept alternating."""
        if not self.pinned:
            return []
        calls: dict[str, ToolCall] = {c.id: c for m in summarized if m.role == "assistant" for c in m.tool_calls}
        units: list[list[Message]] = []
        index = 0
        while index < len(summarized):
            message = summarized[index]
            index += 1
            if part_id(message) not in self.pinned:
                continue
            if message.role == "tool":
                call = calls.get(message.tool_call_id or "")
                if call is not None:
                    units.append([Message(role="assistant", content="", tool_calls=[call]), message])
            elif message.role == "assistant" and message.tool_calls:
                results = []  # its results come with it (an assistant call without its results cannot be sent)
                while index < len(summarized) and summarized[index].role == "tool":
                    results.append(summarized[index])
                    index += 1
                units.append([message, *results])
            else:
                units.append([message])
        if not units:
            return []
        out: list[Message] = [Message.user(PINNED_INTRO)]
        for unit in units:
            if _speaker(out[-1]) == _speaker(unit[0]):
                out.append(Message.user("(pinned, continued)") if _speaker(unit[0]) == "assistant" else Message(role="assistant", content=PINNED_ACK))
            out.extend(unit)
        if _speaker(out[-1]) == "user":
            out.append(Message(role="assistant", content=PINNED_ACK))
        return out


def _speaker(message: Message) -> str:
    """Who speaks, for alternation: a tool result continues the assistant's turn, which a user message may follow."""
    return "user" if message.role in ("user", "tool") else "assistant"


def dropped_copy(message: Message, pid: str) -> Message:
    """The placeholder a dropped part is sent as; a call keeps its id and name (its result must answer it) but not its arguments."""
    from app.core.request import message_kind

    kind = message_kind(message).replace("_", " ")
    calls = [replace(c, arguments="{}") for c in message.tool_calls]
    return replace(message, content=DROPPED.format(kind=kind, id=pid), images=[], tool_calls=calls, reasoning="")


def cache_loss(parts: Iterable[Any], cached_tokens: int, part: str) -> int:
    """How many of the last request's cached prompt tokens stop being cached if ``part`` changes.

    A provider caches a prefix: everything before the first changed part stays cached,
    everything from it on is sent afresh. ``parts`` are the last request's parts in order
    (each with ``tokens`` and ``part_id``).
    """
    before = 0
    for item in parts:
        if getattr(item, "part_id", "") == part:
            return max(0, cached_tokens - before)
        before += item.tokens
    return 0


def _real_request(message: Message) -> bool:
    """A message the person typed (not a reminder, summary or attachment block): where a turn starts."""
    return message.role == "user" and not message.content.lstrip().startswith("<")


def turn_ids(messages: list[Message], start: str) -> list[str]:
    """The ids of the turn that starts at part ``start``: it and every part up to the next message the person typed."""
    ids = [part_id(m) for m in messages]
    if start not in ids:
        return []
    first = ids.index(start)
    end = next((i for i in range(first + 1, len(messages)) if _real_request(messages[i])), len(messages))
    return list(dict.fromkeys(ids[first:end]))


def range_ids(messages: list[Message], first: str, last: str) -> list[str]:
    """The ids from part ``first`` to part ``last`` (either order), both included; [] when either is not there."""
    ids = [part_id(m) for m in messages]
    if first not in ids or last not in ids:
        return []
    a, b = sorted((ids.index(first), ids.index(last)))
    return list(dict.fromkeys(ids[a : b + 1]))


@dataclass
class ViewPart:
    """One editable part of a session's view, as the CLI lists it."""

    id: str
    kind: str
    name: str
    state: str
    chars: int
    preview: str


def view_parts(history: list[Message], edits: ViewEdits) -> list[ViewPart]:
    """The parts of ``history`` (tool pairs repaired, as it is sent) with what was done to each; one row per id."""
    from app.context.compaction.pairing import repair_tool_pairs
    from app.core.request import message_kind, message_text
    from app.core.session.preview import one_line_preview

    rows: dict[str, ViewPart] = {}
    for message in repair_tool_pairs(history).messages:
        pid = part_id(message)
        if pid in rows:
            continue
        kind = message_kind(message)
        name = f"{message.name or 'tool'} result" if kind == "tool_result" else kind.replace("_", " ")
        text = edits.replaced.get(pid) or message_text(message)
        rows[pid] = ViewPart(pid, kind, name, edits.state_of(pid), len(text), one_line_preview(text, 60))
    return list(rows.values())


def commit(edits: ViewEdits, recorder: Any, action: str, part: str, text: str = "") -> dict[str, Any]:
    """Make the edit and record it (a ``view_edit`` system record) so ``--resume`` replays it."""
    payload = edits.apply(action, part, text)
    recorder.append_system(SUBTYPE_VIEW_EDIT, payload)
    return payload
