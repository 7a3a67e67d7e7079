"""Resumed tool calls get their titles when first shown, not while the transcript is rebuilt."""

from __future__ import annotations

from app.core.history import Message, ToolCall
from app.tui.widgets.transcript import entries_from_history


def test_titles_are_worked_out_when_shown_and_once() -> None:
    calls = [ToolCall(f"c{n}", "read_file", f'{{"path": "f{n}.py"}}') for n in range(3)]
    history = [Message.user("go"), Message(role="assistant", content="", tool_calls=calls)]
    history += [Message.tool_result(call, "text") for call in calls]
    asked: list[str] = []

    def summarize(call: ToolCall) -> str:
        asked.append(call.id)
        return f"read_file {call.parsed_arguments()['path']}"

    entries = entries_from_history(history, summarize)
    assert asked == []
    tools = [entry for entry in entries if entry.kind == "tool"]
    assert [entry.status for entry in tools] == ["ok", "ok", "ok"]
    assert tools[2].shown_title() == "read_file f2.py"
    assert tools[2].shown_title() == "read_file f2.py"
    assert asked == ["c2"]
    assert [entry.shown_title() for entry in tools] == ["read_file f0.py", "read_file f1.py", "read_file f2.py"]


def test_without_a_summarizer_the_tool_name_is_the_title() -> None:
    call = ToolCall("c1", "glob", "{}")
    [_, entry] = entries_from_history([Message.user("x"), Message(role="assistant", content="", tool_calls=[call])])
    assert entry.shown_title() == "glob"
