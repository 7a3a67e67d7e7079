"""One message larger than the window: cut to head and tail in what is sent, whole in the history."""

from __future__ import annotations

from app.context.compaction.slimming import MAX_MESSAGE_SHARE, cap_oversized
from app.core.history import Message, ToolCall


def test_small_messages_go_out_as_they_are() -> None:
    messages = [Message.user("hi"), Message(role="assistant", content="hello")]
    assert cap_oversized(messages, 1000) is messages


def test_an_oversized_message_keeps_its_head_and_tail_and_says_what_was_cut() -> None:
    big = "A" * 30_000 + "B" * 30_000
    history = [Message.user("first"), Message.tool_result(ToolCall("c1", "read_file"), big)]
    view = cap_oversized(history, 8_000)
    limit = 8_000 * 4 * MAX_MESSAGE_SHARE
    assert view[0] is history[0]
    cut = view[1]
    assert len(cut.content) <= limit and cut.content.startswith("A" * 100) and cut.content.endswith("B" * 100)
    assert "characters cut from the middle of this message" in cut.content
    assert cut.tool_call_id == "c1" and cut.name == "read_file", "still the result of its call"
    assert history[1].content == big, "the history is untouched"


def test_the_marker_counts_what_was_cut() -> None:
    [cut] = cap_oversized([Message.user("x" * 50_000)], 4_000)
    head, rest = cut.content.split("\n\n[… ", 1)
    number, tail = rest.split(" characters", 1)[0], rest.rsplit("]\n\n", 1)[1]
    assert int(number.replace(",", "")) == 50_000 - len(head) - len(tail)
    assert set(head) == set(tail) == {"x"}


def test_a_call_whose_arguments_alone_are_too_big_keeps_valid_json_cut_to_head_and_tail() -> None:
    import json

    from app.core.history import ToolCall

    content = "0123456789abcdef" * 100_000  # 1.6 M characters written by one call
    call = ToolCall("w1", "write_file", json.dumps({"path": "big.txt", "content": content}))
    messages = [Message.user("write it"), Message(role="assistant", content="", tool_calls=[call])]
    view = cap_oversized(messages, 32_000)
    [sent] = view[1].tool_calls
    args = json.loads(sent.arguments)
    assert args["path"] == "big.txt"
    assert len(sent.arguments) <= 32_000 * 4 * 0.5 + 200
    assert args["content"].startswith("0123456789abcdef") and args["content"].endswith("abcdef")
    assert "characters cut from the middle of this message" in args["content"]
    assert messages[1].tool_calls[0].arguments == call.arguments, "the history keeps every character"
