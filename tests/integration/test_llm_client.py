"""Our OpenAI-compatible client (httpx2, server-sent events) against the scripted local server."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from app.core.history import Message
from app.core.llm.assembly import ReplyAssembler
from app.core.llm.errors import LLMError
from app.core.llm.openai_compat import OpenAICompatProvider
from app.core.llm.provider import stream_with_retries
from app.core.llm.retry import RetryPolicy
from app.core.llm.side_query import side_query
from app.core.llm.types import ChatRequest, RetryPiece
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _provider(server: FakeOpenAIServer, **kwargs) -> OpenAICompatProvider:  # type: ignore[no-untyped-def]
    return OpenAICompatProvider(base_url=server.base_url, model="test-model", api_key="k", **kwargs)


def _request(text: str = "hi", tools: list | None = None) -> ChatRequest:
    return ChatRequest(system="be brief", messages=[Message.user(text)], tools=tools or [])


async def _no_sleep(_: float) -> None:
    return None


async def _collect(provider, request, policy=None):  # type: ignore[no-untyped-def]
    assembler = ReplyAssembler()
    retries: list[RetryPiece] = []
    async for piece in stream_with_retries(provider, request, policy or RetryPolicy(max_retries=0), sleep=_no_sleep):
        if isinstance(piece, RetryPiece):
            retries.append(piece)
            if piece.discard_partial:
                assembler.reset()
            continue
        assembler.add(piece)
    return assembler, retries


async def test_text_stream_reassembles_with_usage(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("Hel", "lo ", "world", usage=(21, 3)))
    assembler, _ = await _collect(_provider(fake_llm), _request())
    message = assembler.message()
    assert message.content == "Hello world"
    assert assembler.usage is not None and assembler.usage.prompt_tokens == 21 and assembler.usage.completion_tokens == 3
    assert assembler.finish_reason == "stop"
    body = fake_llm.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["model"] == "test-model"
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["messages"][1] == {"role": "user", "content": "hi"}


async def test_reasoning_content_is_kept_apart(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("42", reasoning=["let me ", "think"]))
    assembler, _ = await _collect(_provider(fake_llm), _request())
    message = assembler.message()
    assert message.reasoning == "let me think"
    assert message.content == "42"
    # Reasoning is shown, never sent back.
    assert "reasoning" not in message.to_openai()


async def test_tool_call_arguments_split_across_chunks(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.tool_calls(
            [("call_a", "read_file", ['{"pa', 'th": "a', '.txt"}']), ("call_b", "glob", ['{"pattern"', ': "*.py"}'])],
            text="Looking.",
        )
    )
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    assembler, _ = await _collect(_provider(fake_llm), _request(tools=tools))
    message = assembler.message()
    assert message.content == "Looking."
    assert [(c.id, c.name) for c in message.tool_calls] == [("call_a", "read_file"), ("call_b", "glob")]
    assert message.tool_calls[0].parsed_arguments() == {"path": "a.txt"}
    assert message.tool_calls[1].parsed_arguments() == {"pattern": "*.py"}
    assert assembler.finish_reason == "tool_calls"
    assert fake_llm.requests[0].body["tools"] == tools


async def test_429_with_retry_after_is_retried_then_succeeds(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.error(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "2"}))
    fake_llm.push(Reply.text("done"))
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    assembler = ReplyAssembler()
    retries = []
    async for piece in stream_with_retries(_provider(fake_llm), _request(), RetryPolicy(max_retries=3), sleep=sleep):
        if isinstance(piece, RetryPiece):
            retries.append(piece)
        else:
            assembler.add(piece)
    assert assembler.message().content == "done"
    assert slept == [2.0]
    assert len(retries) == 1 and not retries[0].discard_partial
    assert "rate-limiting" in retries[0].reason
    assert len(fake_llm.requests) == 2


async def test_retries_are_bounded(fake_llm: FakeOpenAIServer) -> None:
    for _ in range(3):
        fake_llm.push(Reply.error(503))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request(), RetryPolicy(max_retries=2, base_delay=0.01))
    assert caught.value.kind == "server"
    assert "gave up after 3 attempts" in caught.value.message
    assert len(fake_llm.requests) == 3


@pytest.mark.parametrize(
    ("status", "kind", "phrase"),
    [(401, "auth", "API key"), (404, "not_found", "test-model"), (400, "bad_request", "refused")],
)
async def test_client_errors_are_not_retried(fake_llm: FakeOpenAIServer, status: int, kind: str, phrase: str) -> None:
    fake_llm.push(Reply.error(status))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request(), RetryPolicy(max_retries=3))
    assert caught.value.kind == kind
    assert phrase in caught.value.message
    assert len(fake_llm.requests) == 1


async def test_connection_refused_gives_one_clear_sentence() -> None:
    with socket.socket() as probe:  # bound, never listening: refused, and no parallel test takes the port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        provider = OpenAICompatProvider(base_url=f"http://127.0.0.1:{port}/v1", model="m", connect_timeout=2)
        with pytest.raises(LLMError) as caught:
            await _collect(provider, _request())
    assert caught.value.kind == "connection"
    assert f"127.0.0.1:{port}" in caught.value.message
    assert "connection refused" in caught.value.message


async def test_dropped_stream_is_retried_and_partial_text_discarded(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.drop(after=["partial ", "answer"]))
    fake_llm.push(Reply.text("full answer"))
    assembler, retries = await _collect(_provider(fake_llm), _request(), RetryPolicy(max_retries=2, base_delay=0.01))
    assert assembler.message().content == "full answer"
    assert len(retries) == 1 and retries[0].discard_partial
    assert "dropped" in retries[0].reason


async def test_dropped_stream_without_retries_is_an_error(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.drop(after=["partial"]))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request())
    assert caught.value.kind == "connection"


async def test_stall_past_the_read_timeout(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stall(5, after=["a"]))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm, read_timeout=0.3), _request())
    assert caught.value.kind == "timeout"
    assert "0.3 s" in caught.value.message


async def test_garbage_is_reported_as_not_openai_compatible(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.garbage(b"<html>hello</html>", content_type="text/html"))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request())
    assert caught.value.kind == "bad_response"
    assert "OpenAI-compatible" in caught.value.message


async def test_error_event_mid_stream(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stream_error(after=["a"], message="model overloaded"))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request())
    assert "model overloaded" in caught.value.message


async def test_cancellation_stops_the_stream_at_once(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stall(120, after=["a"]))
    task = asyncio.create_task(_collect(_provider(fake_llm), _request()))
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    await asyncio.sleep(0.1)
    task.cancel()
    # The server is still stalling (120 s): finishing at all means the stream was abandoned at once.
    done, _ = await asyncio.wait({task}, timeout=30)
    assert task in done and task.cancelled()


async def test_side_query_returns_parsed_json(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text('{"ids": ["a", "b"]}'))
    schema = {"type": "object", "properties": {"ids": {"type": "array"}}, "required": ["ids"]}
    answer = await side_query(_provider(fake_llm), system="pick", prompt="which?", schema=schema, timeout=5)
    assert answer == {"ids": ["a", "b"]}
    body = fake_llm.requests[0].body
    assert body.get("stream") in (None, False)
    assert body["response_format"]["type"] == "json_schema"


async def test_side_query_falls_back_when_json_schema_is_unsupported(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.error(400, {"error": {"message": "response_format json_schema is not supported"}}))
    fake_llm.push(Reply.text('{"ok": true}'))
    answer = await side_query(_provider(fake_llm), system="s", prompt="p", schema={"required": ["ok"]}, timeout=5)
    assert answer == {"ok": True}
    assert fake_llm.requests[1].body["response_format"] == {"type": "json_object"}


async def test_side_query_times_out(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stall(5))
    with pytest.raises(LLMError) as caught:
        await side_query(_provider(fake_llm), system="s", prompt="p", timeout=0.3)
    assert caught.value.kind == "timeout"


def _event_stream(*lines: str, end: str = "\n") -> Reply:
    """A raw event-stream body, line by line, as some servers write it."""
    return Reply.garbage(end.join(lines) + end, content_type="text/event-stream")


def _delta(content: str = "", finish: str | None = None) -> str:
    delta = {"content": content} if content else {}
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


async def test_keep_alive_comments_crlf_and_data_without_a_space_are_read(fake_llm: FakeOpenAIServer) -> None:
    # OpenRouter sends ": OPENROUTER PROCESSING" while it waits; some servers end lines with CRLF.
    fake_llm.push(
        _event_stream(
            ": OPENROUTER PROCESSING", "", f"data: {_delta('Hel')}", "", "id: 7", f"data:{_delta('lo')}", "",
            f"data: {_delta(finish='stop')}", "", "data: [DONE]", "",
            end="\r\n",
        )
    )
    assembler, _ = await _collect(_provider(fake_llm), _request())
    assert assembler.message().content == "Hello"
    assert assembler.finish_reason == "stop"


async def test_an_event_split_over_data_lines_is_one_json_chunk(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(_event_stream('data: {"choices": [{"index": 0,', 'data: "delta": {"content": "joined"}}]}', ""))
    assembler, _ = await _collect(_provider(fake_llm), _request())
    assert assembler.message().content == "joined"


async def test_a_named_error_event_stops_the_answer_with_its_message(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(_event_stream(f"data: {_delta('par')}", "", "event: error", 'data: {"message": "quota exhausted"}', ""))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request())
    assert caught.value.kind == "stream"
    assert "quota exhausted" in caught.value.message


async def test_a_context_length_error_inside_the_stream_is_recognised(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stream_error(after=[], message="This model's maximum context length is 8192 tokens"))
    with pytest.raises(LLMError) as caught:
        await _collect(_provider(fake_llm), _request())
    assert caught.value.kind == "context_length"


async def test_the_key_the_agent_and_extra_body_fields_reach_the_server(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("ok"))
    request = _request()
    request.extra_body = {"enable_thinking": False}
    await _collect(_provider(fake_llm), request)
    sent = fake_llm.requests[0]
    assert sent.path.endswith("/chat/completions")
    assert sent.headers["authorization"] == "Bearer k"
    assert sent.headers["user-agent"].startswith("agentctx-tui/")
    assert sent.body["enable_thinking"] is False


async def test_a_long_error_body_is_explained_and_a_huge_one_quoted_short(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.error(400, body={"error": {"message": "bad " + "x" * 200_000}}))
    fake_llm.push(Reply.error(400, body={"error": {"message": "huge " + "x" * 3_000_000}}))
    for expected in ("bad xxx", '{"error": {"message": "huge xxx'):
        with pytest.raises(LLMError) as caught:
            await _collect(_provider(fake_llm), _request())
        assert caught.value.kind == "bad_request"
        assert caught.value.message.startswith(f"The model endpoint refused the request (HTTP 400): {expected}")
    assert len(caught.value.message) < 400
