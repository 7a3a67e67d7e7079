"""Loading a session file back into a conversation that is valid to resend.

Loading never fails on content: every line that cannot be used is skipped and
described in ``warnings``, because a half-written file after a crash is the
normal case this exists for.
"""

from __future__ import annotations

import gc
from dataclasses import field
from app.dataclass import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from app.core.history import Message, Usage, close_dangling_tool_calls
from app.core.session.dedupe import MISSING_CONTENT_PLACEHOLDER, worth_deduplicating
from app.core.session.lazy_text import SessionFileText, hold_content, stored_content
from app.core.session.preview import one_line_preview
from app.core.session.reader import iter_records
from app.core.session.records import (
    SUBTYPE_CHAT_COMPRESSION,
    SUBTYPE_CUSTOM_TITLE,
    SUBTYPE_MICRO_COMPACTION,
    SUBTYPE_REWIND,
    TITLE_SOURCE_MANUAL,
    Record,
    parse_timestamp,
)
from app.core.session.tail import title_from_record_dict

INTERRUPTED_TOOL_RESULT = (
    "This tool call never finished: the session ended (the app was closed or crashed) before its result was recorded."
)
# One warning per problem line up to this many; the rest are summed up in one more.
MAX_LINE_WARNINGS = 10
# Whether a session was loaded in this process already (see load_session on the collector).
_loaded_before = False


@dataclass
class LoadedSession:
    """A session file read back: the conversation to continue, and what the file says about it."""

    session_id: str
    path: Path
    messages: list[Message] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Usage of the last assistant reply after the last compression checkpoint:
    # an older one describes a context that no longer exists.
    last_usage: Usage | None = None
    # Every request's usage summed, compactions and rewinds included (the session's prompt-cache hit rate).
    session_usage: Usage = field(default_factory=Usage)
    model: str | None = None
    first_prompt: str = ""
    # The estimated size of the history right after the last compression checkpoint.
    checkpoint_tokens: int | None = None
    started_at: datetime | None = None
    # The time of the last record (the file's mtime when no record has a readable one).
    updated_at: datetime | None = None
    title: str | None = None
    title_source: str | None = None
    # Large tool results by the uuid of the record holding them: later records may
    # refer to them (``contentRef``), and the recorder continues from them on resume.
    large_results: dict[str, str | SessionFileText] = field(default_factory=dict)
    problem_lines: int = 0


def load_session(path: Path, *, leave_large_results: bool = True) -> LoadedSession:
    """Read a session file into messages; raises only if the file itself cannot be opened.

    Large tool results stay in the file until read (app/core/session/lazy_text.py) unless
    ``leave_large_results`` is False.
    """
    loaded = LoadedSession(session_id=path.stem, path=path)
    # Loading makes hundreds of thousands of objects and no cycles; each collection the allocations
    # would set off walks all of them again. Off, a 500 MB record loads in about 30 % less CPU time.
    # They live as long as the session, so after the first load in a process they are moved out of the
    # collector's sight (``gc.freeze``): otherwise the first full collection after loading, and every
    # one later, walks them all (0.3 s in the middle of building the transcript, for 500 MB). Whatever
    # else was alive then is frozen too, and a frozen cycle is never freed; so a later load (another
    # session picked in the same process, whose predecessor is about to become garbage) unfreezes
    # everything instead and leaves the collector to do its work.
    global _loaded_before
    first_load, _loaded_before = not _loaded_before, True
    collecting = gc.isenabled()
    gc.disable()
    try:
        for line in iter_records(path, leave_large_results=leave_large_results):
            if line.record is None:
                _line_warning(loaded, f"line {line.lineno} of {path} could not be read ({line.problem}) and was skipped")
                continue
            _take(loaded, line.record, line.lineno)
        if first_load:
            gc.freeze()
        else:
            gc.unfreeze()
    finally:
        if collecting:
            gc.enable()
    if loaded.problem_lines > MAX_LINE_WARNINGS:
        more = loaded.problem_lines - MAX_LINE_WARNINGS
        loaded.warnings.append(f"{more} more line(s) of {path} had problems like these (not listed one by one)")
    loaded.session_usage = _usage_sum(loaded.records)
    _repair_unanswered_tool_calls(loaded)
    loaded.updated_at = _last_time(loaded.records)
    if loaded.updated_at is None:
        loaded.updated_at = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    return loaded


def _usage_sum(records: list[Record]) -> Usage:
    """Every answer's usage added up, rewinds and compactions included: one sum per field at the end
    (adding record by record made 50,000 ``Usage`` objects for a 500 MB session)."""
    usages = [r.usage for r in records if r.usage is not None and r.type == "assistant" and r.message is not None]
    if not usages:
        return Usage()
    return Usage(
        sum(u.prompt_tokens for u in usages),
        sum(u.completion_tokens for u in usages),
        sum(u.total_tokens for u in usages),
        sum(u.reasoning_tokens for u in usages),
        sum(u.cached_tokens for u in usages),
    )


def _last_time(records: list[Record]) -> datetime | None:
    for record in reversed(records):
        stamp = parse_timestamp(record.timestamp)
        if stamp is not None:
            return stamp
    return None


def _line_warning(loaded: LoadedSession, text: str) -> None:
    loaded.problem_lines += 1
    if loaded.problem_lines <= MAX_LINE_WARNINGS:
        loaded.warnings.append(text)


def _take(loaded: LoadedSession, record: Record, lineno: int) -> None:
    """Fold one valid record into the loaded session."""
    loaded.records.append(record)
    # Only the first and the last readable times matter; the last is found once the file is read.
    if loaded.started_at is None:
        loaded.started_at = parse_timestamp(record.timestamp)
    if record.model:
        loaded.model = record.model
    if record.type == "system":
        if record.subtype == SUBTYPE_CHAT_COMPRESSION:
            _restart_from_checkpoint(loaded, record, lineno)
        elif record.subtype == SUBTYPE_MICRO_COMPACTION:
            _clear_tool_results(loaded, record)
        elif record.subtype == SUBTYPE_CUSTOM_TITLE:
            _take_title(loaded, record)
        elif record.subtype == SUBTYPE_REWIND:
            _rewind(loaded, record, lineno)
        return
    if record.message is None:
        return
    if record.type == "tool_result":
        _restore_or_keep_content(loaded, record, lineno)
    loaded.messages.append(record.message)
    if record.type == "user" and not loaded.first_prompt and record.message.content.strip():
        loaded.first_prompt = one_line_preview(record.message.content)
    if record.type == "assistant" and record.usage is not None:
        loaded.last_usage = record.usage


def _restore_or_keep_content(loaded: LoadedSession, record: Record, lineno: int) -> None:
    """Put back the text a deduplicated tool result refers to; remember large texts for later ones."""
    message = record.message
    assert message is not None
    stored = stored_content(message)  # a text left in the file stays there
    # A writer that kept the text inline (not ours) is taken at its word.
    if record.content_ref is None or stored:
        # A text left in the file is always large enough (reader._LEFT_TEXT_MIN).
        if type(stored) is not str or worth_deduplicating(stored):
            loaded.large_results[record.uuid] = stored
        return
    text = loaded.large_results.get(record.content_ref)
    if text is None:
        _line_warning(
            loaded,
            f"line {lineno} of {loaded.path} repeats the tool result of record {record.content_ref}, "
            "which is missing or unreadable; a placeholder was kept instead of its text",
        )
        text = MISSING_CONTENT_PLACEHOLDER
    hold_content(message, text)  # the same text as the record it repeats: read once for both


def _take_title(loaded: LoadedSession, record: Record) -> None:
    """The newest manual title wins; an automatic one only counts until a manual one exists."""
    found = title_from_record_dict({"subtype": record.subtype, "systemPayload": record.system_payload})
    if found is None:
        return
    title, source = found
    if source == TITLE_SOURCE_MANUAL or loaded.title_source != TITLE_SOURCE_MANUAL:
        loaded.title, loaded.title_source = title, source


def _rewind(loaded: LoadedSession, record: Record, lineno: int) -> None:
    """Replay a rewind: the view goes back to just before the message it names (app.core.session.rewind)."""
    from app.core.session.rewind import rewound

    messages = rewound(loaded.messages, record.system_payload or {})
    if messages is None:
        loaded.warnings.append(
            f"the rewind on line {lineno} of {loaded.path} names a message this view does not hold; "
            "the conversation is shown as it was before it"
        )
        return
    loaded.messages = messages
    loaded.last_usage = None  # it described the context that was rewound


def _restart_from_checkpoint(loaded: LoadedSession, record: Record, lineno: int) -> None:
    """Replace the history so far with the checkpoint's compressed history.

    Reading in order, the last checkpoint naturally wins and everything after
    it is appended to its history.
    """
    payload = record.system_payload or {}
    compressed = payload.get("compressedHistory")
    if compressed is None:
        return
    try:
        messages = _messages_from(compressed)
    except ValueError as exc:
        loaded.warnings.append(
            f"the compression checkpoint on line {lineno} of {loaded.path} could not be used ({exc}); "
            "the history before it was kept instead"
        )
        return
    loaded.messages = messages
    loaded.last_usage = None
    info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
    tokens = info.get("newTokenCount")
    loaded.checkpoint_tokens = tokens if isinstance(tokens, int) and tokens >= 0 else None


def _clear_tool_results(loaded: LoadedSession, record: Record) -> None:
    """Replay a micro-compaction: the same tool results are cleared in the resumed view."""
    payload = record.system_payload or {}
    ids = payload.get("clearedToolCallIds")
    placeholder = payload.get("placeholder")
    if not isinstance(ids, list) or not isinstance(placeholder, str):
        return
    cleared = {str(i) for i in ids}
    loaded.messages = [
        m.cleared(placeholder) if m.role == "tool" and m.tool_call_id in cleared else m for m in loaded.messages
    ]


def _messages_from(items: Any) -> list[Message]:
    if not isinstance(items, list):
        raise ValueError("compressedHistory is not a list")
    messages: list[Message] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"entry {index} of compressedHistory is not an object")
        try:
            messages.append(Message.from_dict(item))
        except (TypeError, AttributeError):
            raise ValueError(f"entry {index} of compressedHistory is malformed") from None
    return messages


def _repair_unanswered_tool_calls(loaded: LoadedSession) -> None:
    """Give every tool call without a result an error result, right after its turn.

    Servers reject a history where a tool call has no result; a crash mid-turn
    leaves exactly that. The repair is in memory only; the file is not touched.
    The history is copied only when something is missing (almost never): copying
    105,000 messages to find nothing was 0.05 s of a 500 MB resume.
    """
    messages = loaded.messages
    count = len(messages)
    inserts: list[tuple[int, list[Message]]] = []  # (where the turn's results end, the results it lacks)
    index = 0
    while index < count:
        message = messages[index]
        index += 1
        if message.role != "assistant" or not message.tool_calls:
            continue
        start = index
        while index < count and messages[index].role == "tool":
            index += 1
        calls = message.tool_calls
        if len(calls) == index - start and all(c.id == m.tool_call_id for c, m in zip(calls, messages[start:index])):
            continue  # every call answered, in order: the common case, no need for the general check
        missing = close_dangling_tool_calls([message, *messages[start:index]], INTERRUPTED_TOOL_RESULT)
        if missing:
            inserts.append((index, missing))
    if not inserts:
        return
    repaired: list[Message] = []
    done = 0
    for at, missing in inserts:
        repaired.extend(messages[done:at])
        repaired.extend(missing)
        done = at
    repaired.extend(messages[done:])
    loaded.messages = repaired
    added = sum(len(missing) for _, missing in inserts)
    calls, were = ("tool call", "was") if added == 1 else ("tool calls", "were")
    loaded.warnings.append(
        f"{added} {calls} in {loaded.path} had no result (the turn was interrupted) "
        f"and {were} marked as failed so the conversation can continue"
    )
