"""The recap's pure parts: which messages go in, the request, and reading the answer."""

from __future__ import annotations

import asyncio

import pytest

from app.core.history import Message, ToolCall
from app.core.llm.types import ChatRequest, Completion
from app.core.session.recap import (
    NOT_ENOUGH_CONTEXT,
    RECAP_AFTER_IDLE_SECONDS,
    RECAP_BUSY,
    RECAP_FINAL_PROMPT,
    RECAP_MAX_OUTPUT_TOKENS,
    RECAP_SYSTEM_PROMPT,
    RECAP_TEMPERATURE,
    RECENT_MESSAGE_WINDOW,
    extract_recap,
    filter_to_dialog,
    recap_messages,
    recap_request,
    take_recent_dialog,
)
from app.core.session.recap_query import generate_recap


def _u(text: str) -> Message:
    return Message.user(text)


def _a(text: str, **extra) -> Message:  # type: ignore[no-untyped-def]
    return Message(role="assistant", content=text, **extra)


def _pairs(n: int) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out += [_u(f"q{i}"), _a(f"a{i}")]
    return out


def test_the_spec_constants_and_strings() -> None:
    assert RECENT_MESSAGE_WINDOW == 30
    assert (RECAP_MAX_OUTPUT_TOKENS, RECAP_TEMPERATURE) == (300, 0.3)
    assert RECAP_AFTER_IDLE_SECONDS == 300
    assert RECAP_FINAL_PROMPT == "Generate the recap now. Wrap it in <recap>...</recap>. Nothing outside the tags."
    assert NOT_ENOUGH_CONTEXT == "Not enough conversation context for a recap yet."
    assert RECAP_BUSY == "Cannot run /recap while another operation is in progress."
    assert "language" in RECAP_SYSTEM_PROMPT and "<recap>" in RECAP_SYSTEM_PROMPT


def test_filter_keeps_only_what_was_said() -> None:
    call = ToolCall("c1", "read_file", '{"path": "a.py"}')
    history = [
        Message.system("you are an agent"),
        _u("fix the bug"),
        _a("", tool_calls=[call]),  # only a tool call: gone
        Message.tool_result(call, "10K tokens of file dump"),
        _a("Let me check.", tool_calls=[call], reasoning="secret chain of thought"),
        _u("<system-reminder>\nRecalled memory: use tabs\n</system-reminder>"),  # only a reminder: gone
        _u("and the tests? <system-reminder>skill list</system-reminder>"),
        _a("   "),
    ]
    dialog = filter_to_dialog(history)
    assert [(m.role, m.content) for m in dialog] == [
        ("user", "fix the bug"),
        ("assistant", "Let me check."),
        ("user", "and the tests?"),
    ]
    assert all(not m.tool_calls and not m.reasoning for m in dialog)
    assert history[4].tool_calls and history[4].reasoning, "the history itself is left alone"


def test_reminder_tags_are_matched_case_insensitively_and_across_lines() -> None:
    [message] = filter_to_dialog([_u("<SYSTEM-REMINDER>a\nb</System-Reminder>keep this")])
    assert message.content == "keep this"


def test_thirty_or_fewer_are_all_kept() -> None:
    dialog = _pairs(15)
    assert take_recent_dialog(dialog) == dialog


def test_more_than_thirty_start_at_len_minus_30_then_the_first_user_message() -> None:
    dialog = _pairs(20)  # 40 messages, user first
    recent = take_recent_dialog(dialog)
    assert len(recent) == 30 and recent[0].content == "q5"  # len-30 = 10 is a user message

    shifted = _pairs(20) + [_a("and one more thing")]  # 41: len-30 = 11 is an assistant message (a5)
    recent = take_recent_dialog(shifted)
    assert recent[0].role == "user" and recent[0].content == "q6" and len(recent) == 29


def test_no_user_message_in_the_window_leaves_nothing() -> None:
    dialog = [_u("first")] + [_a(f"a{i}") for i in range(35)]
    assert take_recent_dialog(dialog) == []
    assert recap_messages(dialog) is None


def test_fewer_than_two_messages_give_none() -> None:
    assert recap_messages([]) is None
    assert recap_messages([_u("hello")]) is None
    call = ToolCall("c1", "shell", "{}")
    assert recap_messages([_u("run it"), _a("", tool_calls=[call]), Message.tool_result(call, "ok")]) is None
    assert recap_messages([_u("run it"), _a("Done.")]) == [_u("run it"), _a("Done.")]


def test_the_request_ends_with_the_exact_final_prompt() -> None:
    dialog = [_u("q"), _a("a")]
    request = recap_request(dialog)
    assert request[:2] == dialog
    assert request[-1].role == "user" and request[-1].content == RECAP_FINAL_PROMPT


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("<recap>You fixed the parser.</recap>", "You fixed the parser."),
        ("Sure!\n<RECAP>\n  Two lines\nof recap.\n</Recap> trailing", "Two lines\nof recap."),
        ("<recap>first</recap><recap>second</recap>", "first"),
        ("<recap>cut off before the closing tag", "cut off before the closing tag"),
        ("no tags at all", ""),
        ("", ""),
        ("<recap>你修好了解析器,下一步是补测试。</recap>", "你修好了解析器,下一步是补测试。"),
        ("好的。<recap>你在重构会话列表", "你在重构会话列表"),
    ],
)
def test_extract_recap(answer: str, expected: str) -> None:
    assert extract_recap(answer) == expected


class _Provider:
    model = "m"
    base_url = "http://x"
    read_timeout = 5.0

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.requests: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        self.requests.append(request)
        return Completion(message=Message(role="assistant", content=self.answer), usage=None, finish_reason="stop")

    async def aclose(self) -> None:
        return None


def test_generate_recap_asks_once_without_tools_and_reads_the_tags() -> None:
    provider = _Provider("<recap>你在给会话加标题。</recap>")
    history = [_u("给会话加自动标题"), _a("好的,我先看记录格式。")]
    text = asyncio.run(generate_recap(provider, history))  # type: ignore[arg-type]
    assert text == "你在给会话加标题。"
    [request] = provider.requests
    assert request.max_tokens == 300 and request.temperature == 0.3
    assert not request.tools and request.response_format is None
    assert request.system == RECAP_SYSTEM_PROMPT
    assert [m.content for m in request.messages] == ["给会话加自动标题", "好的,我先看记录格式。", RECAP_FINAL_PROMPT]


def test_generate_recap_without_enough_context_asks_nothing() -> None:
    provider = _Provider("<recap>x</recap>")
    assert asyncio.run(generate_recap(provider, [_u("only me")])) is None  # type: ignore[arg-type]
    assert provider.requests == []
