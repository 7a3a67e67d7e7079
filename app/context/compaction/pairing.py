"""Tool-call pairing: every result answers a call, every call has a result.

Servers reject a history that breaks either rule; compaction, crashes and
cancellation can leave one behind. The repair runs on the view before every
request and never touches the session record.
"""

from __future__ import annotations

from app.dataclass import dataclass

from app.core.history import Message

MISSING_RESULT = "[agentctx] missing tool result in session history; inserted synthetic error result for transcript repair."


@dataclass
class PairRepair:
    """The view after the pairing repair: orphan results dropped, and error results added for calls that had none."""

    messages: list[Message]
    dropped_orphans: int = 0
    added_results: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.dropped_orphans or self.added_results)


def repair_tool_pairs(messages: list[Message]) -> PairRepair:
    """Drop orphan tool results; give calls without a result a synthetic error result right after their turn."""
    out: list[Message] = []
    dropped = added = 0
    open_calls: dict[str, Message] = {}  # calls of the latest assistant turn still waiting for results
    for message in messages:
        if message.role == "tool":
            if message.tool_call_id in open_calls:
                open_calls.pop(message.tool_call_id)
                out.append(message)
            else:
                dropped += 1
            continue
        added += _close(open_calls, out)
        out.append(message)
        if message.role == "assistant":
            open_calls = {call.id: message for call in message.tool_calls}
    added += _close(open_calls, out)
    if not dropped and not added:
        return PairRepair(messages)
    return PairRepair(out, dropped, added)


def _close(open_calls: dict[str, Message], out: list[Message]) -> int:
    count = 0
    for call_id, owner in list(open_calls.items()):
        call = next(c for c in owner.tool_calls if c.id == call_id)
        out.append(Message.tool_result(call, MISSING_RESULT, is_error=True))
        count += 1
    open_calls.clear()
    return count
