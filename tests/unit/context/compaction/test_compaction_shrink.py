"""Cutting the largest parts to head and tail: which parts, in which order, and what is kept."""

from __future__ import annotations

from app.context.compaction.shrink import KEEP_CHARS, cut_message, cuttable, shrink_largest
from app.core.history import Message, ToolCall


def _size(messages: list[Message]) -> int:
    return sum(len(m.content) for m in messages) // 4


def _log(name: str, lines: int) -> str:
    return "".join(f"{name} line {i:05d}\n" for i in range(lines))


def test_only_tool_results_and_pasted_blocks_are_cut() -> None:
    assert cuttable(Message(role="tool", content="x" * 3000, tool_call_id="c"))
    assert cuttable(Message.user("y" * 3000))
    assert not cuttable(Message.user("<system-reminder>" + "z" * 3000))
    assert not cuttable(Message.user("<state_snapshot>" + "z" * 3000))
    assert not cuttable(Message(role="assistant", content="a" * 3000))
    assert not cuttable(Message(role="tool", content="short", tool_call_id="c"))


def test_oldest_first_until_it_fits() -> None:
    call = Message(role="assistant", content="", tool_calls=[ToolCall("c1", "read_file", "{}"), ToolCall("c2", "read_file", "{}")])
    history = [
        Message.user("read both"),
        call,
        Message(role="tool", content=_log("old", 800), tool_call_id="c1"),
        Message(role="tool", content=_log("new", 800), tool_call_id="c2"),
    ]
    target = _size(history) - 2_000
    result = shrink_largest(history, _size, target)
    assert result.tokens <= target
    assert [i for i, _, _ in result.cuts] == [2], "the older result is cut first, the newer one is whole"
    assert result.messages[3] is history[3]
    assert history[2].content == _log("old", 800), "the history passed in is not changed"


def test_nothing_to_cut_leaves_it_as_it_is() -> None:
    history = [Message.user("q " * 100), Message(role="assistant", content="a " * 100)]
    result = shrink_largest(history, _size, 1)
    assert not result.changed and result.messages == history


def test_a_cut_keeps_whole_lines_from_head_and_tail_with_a_marker() -> None:
    message = Message(role="tool", content=_log("app", 2000), tool_call_id="c")
    cut = cut_message(message, KEEP_CHARS)
    head, marker, tail = cut.content.split("\n\n")
    assert head.startswith("app line 00000") and head.split("\n")[-1].startswith("app line ")
    assert tail.endswith("app line 01999\n") and tail.startswith("app line ")
    assert marker.startswith("[… ") and "characters cut from the middle of this tool result" in marker
    assert len(cut.content) < KEEP_CHARS + len(marker) + 200
