"""Tests for the fake OpenAI server, with raw HTTP and with the real openai SDK."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai import AsyncOpenAI

from tests.fakes.fixtures import fake_llm  # noqa: F401  (fixture)
from tests.fakes.openai_server import SCRIPT_RAN_OUT, FakeOpenAIServer, Reply, ToolCall, split_json, split_words
from tests.fakes.serve import (
    DemoScript,
    ReplySpec,
    ScriptError,
    assistant_turns_since_last_user,
    last_user_text,
    load_script,
    make_server,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
USER = [{"role": "user", "content": "hi"}]


# --------------------------------------------------------------------------- helpers


def sdk(server: FakeOpenAIServer, timeout: float = 5.0) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=timeout)


def raw_post(server: FakeOpenAIServer, body: dict[str, Any], **kw: Any) -> httpx.Response:
    return httpx.post(server.base_url + "/chat/completions", json=body, timeout=5, trust_env=False, **kw)


def sse_payloads(text: str) -> list[str]:
    """The data of each SSE event, in order."""
    assert text.endswith("\n\n")
    events = [e for e in text.split("\n\n") if e]
    payloads = []
    for event in events:
        assert event.startswith("data: "), event
        payloads.append(event[len("data: ") :])
    return payloads


async def collect(stream: Any) -> list[Any]:
    return [chunk async for chunk in stream]


# --------------------------------------------------------------------------- raw HTTP


def test_raw_stream_is_protocol_conformant(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("Hello ", "world", model="m-1"))
    resp = raw_post(fake_llm, {"model": "x", "messages": USER, "stream": True})
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/event-stream")
    assert resp.headers["transfer-encoding"] == "chunked"
    payloads = sse_payloads(resp.text)
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    ids = {c["id"] for c in chunks}
    assert len(ids) == 1 and ids.pop().startswith("chatcmpl-")
    for c in chunks:
        assert c["object"] == "chat.completion.chunk"
        assert c["model"] == "m-1"
        assert isinstance(c["created"], int)
        assert len(c["choices"]) == 1 and c["choices"][0]["index"] == 0
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert [c["choices"][0]["delta"].get("content") for c in chunks[1:3]] == ["Hello ", "world"]
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, None, None, "stop"]
    assert chunks[-1]["choices"][0]["delta"] == {}
    assert "usage" not in chunks[-1]


def test_raw_usage_chunk_only_with_include_usage(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("a", usage=(12, 3)), Reply.text("a", usage=(12, 3)))
    with_usage = raw_post(
        fake_llm, {"model": "x", "messages": USER, "stream": True, "stream_options": {"include_usage": True}}
    )
    without = raw_post(fake_llm, {"model": "x", "messages": USER, "stream": True})
    last = json.loads(sse_payloads(with_usage.text)[-2])
    assert last["choices"] == []
    assert last["usage"] == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    assert all("usage" not in json.loads(p) for p in sse_payloads(without.text)[:-1])


def test_raw_tool_call_deltas(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.tool_calls([("call_1", "read_file", ['{"pa', 'th": "a.txt"}'])], text="Let me look."))
    resp = raw_post(fake_llm, {"model": "x", "messages": USER, "stream": True})
    chunks = [json.loads(p) for p in sse_payloads(resp.text)[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert deltas[1] == {"content": "Let me look."}
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0] == {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": ""}}
    for later in calls[1:]:
        assert set(later) == {"index", "function"} and set(later["function"]) == {"arguments"}
    assert "".join(c["function"]["arguments"] for c in calls) == '{"path": "a.txt"}'
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_raw_non_stream_completion(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("Hello ", "world", reasoning="hmm", usage=(5, 2)))
    resp = raw_post(fake_llm, {"model": "x", "messages": USER})
    assert resp.headers["content-type"] == "application/json"
    body = resp.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Hello world", "reasoning_content": "hmm"}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}


def test_raw_models_and_unknown_paths(fake_llm: FakeOpenAIServer) -> None:
    base = fake_llm.base_url
    models = httpx.get(base + "/models", trust_env=False).json()
    assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["fake-model"]
    assert httpx.get(base + "/models/fake-model", trust_env=False).json()["id"] == "fake-model"
    for resp in (
        httpx.get(base + "/nope", trust_env=False),
        httpx.post(base + "/completions", json={}, trust_env=False),
        httpx.post(base.removesuffix("/v1") + "/chat/completions", json={}, trust_env=False),
    ):
        assert resp.status_code == 404
        assert "unknown path" in resp.json()["error"]["message"]
    assert fake_llm.requests == []  # only chat-completion requests are in .requests
    assert [r.path for r in fake_llm.all_requests][:2] == ["/v1/models", "/v1/models/fake-model"]


def test_raw_empty_queue_gives_500(fake_llm: FakeOpenAIServer) -> None:
    resp = raw_post(fake_llm, {"model": "x", "messages": USER, "stream": True})
    assert resp.status_code == 500
    assert resp.json()["error"]["message"] == SCRIPT_RAN_OUT
    assert "ran out" in SCRIPT_RAN_OUT
    assert len(fake_llm.requests) == 1  # recorded all the same


def test_raw_bad_json_body_gives_400_and_is_recorded(fake_llm: FakeOpenAIServer) -> None:
    resp = httpx.post(fake_llm.base_url + "/chat/completions", content=b"{nope", trust_env=False)
    assert resp.status_code == 400
    assert fake_llm.requests[0].body is None and fake_llm.requests[0].raw_body == b"{nope"


def test_raw_delay_between_chunks(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("a", "b", "c", delay=0.05))
    start = time.monotonic()
    raw_post(fake_llm, {"model": "x", "messages": USER, "stream": True})
    # The delay is honoured (a lower bound); no upper bound: wall-clock ceilings make flaky tests.
    assert time.monotonic() - start >= 0.15


def test_keep_alive_connection_is_reused(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("a"), Reply.text("b"))
    with httpx.Client(trust_env=False) as client:
        url = fake_llm.base_url + "/chat/completions"
        first = client.post(url, json={"model": "x", "messages": USER, "stream": True})
        second = client.post(url, json={"model": "x", "messages": USER})
    assert sse_payloads(first.text)[-1] == "[DONE]"
    assert second.json()["choices"][0]["message"]["content"] == "b"


# --------------------------------------------------------------------------- openai SDK


async def test_sdk_text_stream_reassembles_with_usage(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("Hello ", "wor", "ld", usage=(12, 3)))
    async with sdk(fake_llm) as client:
        stream = await client.chat.completions.create(
            model="fake-model", messages=USER, stream=True, stream_options={"include_usage": True}
        )
        chunks = await collect(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Hello world"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (12, 3)
    assert chunks[-1].usage.total_tokens == 15


async def test_sdk_no_usage_without_include_usage(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("x"))
    async with sdk(fake_llm) as client:
        chunks = await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
    assert all(c.usage is None for c in chunks)
    assert all(c.choices for c in chunks)


async def test_sdk_default_usage_is_plausible(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("some answer text"))
    async with sdk(fake_llm) as client:
        chunks = await collect(
            await client.chat.completions.create(
                model="m", messages=USER, stream=True, stream_options={"include_usage": True}
            )
        )
    usage = chunks[-1].usage
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


async def test_sdk_reasoning_deltas_come_before_content(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("x", reasoning=["think ", "more"]))
    async with sdk(fake_llm) as client:
        chunks = await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
    kinds = []
    for c in chunks:
        delta = c.choices[0].delta
        reasoning = getattr(delta, "reasoning_content", None)  # an extra field, kept by the SDK
        if reasoning:
            kinds.append(("r", reasoning))
        if delta.content:
            kinds.append(("c", delta.content))
    assert kinds == [("r", "think "), ("r", "more"), ("c", "x")]


async def test_sdk_tool_calls_concatenate_by_index(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.tool_calls(
            [
                ("call_1", "read_file", ['{"pa', 'th": "a.txt"}']),
                (None, "list_directory", {"path": "."}),
            ],
            text="Let me look.",
        )
    )
    async with sdk(fake_llm) as client:
        chunks = await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
    calls: dict[int, dict[str, Any]] = {}
    text = ""
    for c in chunks:
        delta = c.choices[0].delta
        text += delta.content or ""
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(tc.index, {"id": None, "name": None, "args": "", "deltas": 0})
            slot["deltas"] += 1
            if tc.id:
                assert slot["id"] is None, "id only on the first delta"
                slot["id"] = tc.id
                assert tc.type == "function"
            if tc.function and tc.function.name:
                assert slot["name"] is None, "name only on the first delta"
                slot["name"] = tc.function.name
            if tc.function and tc.function.arguments:
                slot["args"] += tc.function.arguments
    assert text == "Let me look."
    assert calls[0]["id"] == "call_1" and calls[0]["name"] == "read_file"
    assert json.loads(calls[0]["args"]) == {"path": "a.txt"}
    assert calls[1]["id"].startswith("call_") and calls[1]["name"] == "list_directory"
    assert json.loads(calls[1]["args"]) == {"path": "."}
    assert calls[1]["deltas"] >= 3  # mapping arguments are split in pieces
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_sdk_finish_reason_length_and_model(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("truncated", finish_reason="length"), Reply.text("y", model="other"))
    async with sdk(fake_llm) as client:
        first = await collect(await client.chat.completions.create(model="asked", messages=USER, stream=True))
        second = await client.chat.completions.create(model="asked", messages=USER)
    assert first[-1].choices[0].finish_reason == "length"
    assert first[0].model == "asked"  # echoes the requested model by default
    assert second.model == "other"


async def test_sdk_non_streaming(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.text("Hello ", "world", usage=(4, 2)),
        Reply.tool_calls([("call_9", "glob", {"pattern": "*.py"})], finish_reason="tool_calls"),
    )
    async with sdk(fake_llm) as client:
        text = await client.chat.completions.create(model="m", messages=USER)
        tools = await client.chat.completions.create(model="m", messages=USER, stream=False)
    assert text.choices[0].message.content == "Hello world"
    assert text.usage is not None and text.usage.total_tokens == 6
    message = tools.choices[0].message
    assert message.content is None
    assert message.tool_calls[0].id == "call_9" and message.tool_calls[0].function.name == "glob"
    assert json.loads(message.tool_calls[0].function.arguments) == {"pattern": "*.py"}
    assert tools.choices[0].finish_reason == "tool_calls"


async def test_sdk_rate_limit_error_with_retry_after(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.error(429, {"error": {"message": "slow down", "type": "rate_limit"}}, headers={"Retry-After": "1"})
    )
    async with sdk(fake_llm) as client:
        with pytest.raises(openai.RateLimitError) as info:
            await client.chat.completions.create(model="m", messages=USER, stream=True)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "1"
    assert "slow down" in str(info.value)
    assert len(fake_llm.requests) == 1 and fake_llm.requests[0].body["stream"] is True


async def test_sdk_other_http_errors(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.error(401), Reply.error(503, "upstream down", content_type="text/plain"))
    async with sdk(fake_llm) as client:
        with pytest.raises(openai.AuthenticationError):
            await client.chat.completions.create(model="m", messages=USER)
        with pytest.raises(openai.InternalServerError) as info:
            await client.chat.completions.create(model="m", messages=USER, stream=True)
    assert info.value.response.text == "upstream down"


async def test_sdk_drop_mid_stream(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.drop(after=["partial ", "text"]))
    received: list[str] = []
    async with sdk(fake_llm) as client:
        stream = await client.chat.completions.create(model="m", messages=USER, stream=True)
        with pytest.raises(openai.APIConnectionError):
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "partial text"


async def test_sdk_drop_non_streaming(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.drop(after=["partial"]))
    async with sdk(fake_llm) as client:
        with pytest.raises(openai.APIConnectionError):
            await client.chat.completions.create(model="m", messages=USER)


async def test_sdk_stall_gives_timeout_after_partial(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stall(seconds=5, after=["a"]))
    received: list[str] = []
    async with sdk(fake_llm, timeout=0.2) as client:
        stream = await client.chat.completions.create(model="m", messages=USER, stream=True)
        with pytest.raises(openai.APITimeoutError):
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "a"


async def test_sdk_short_stall_then_finishes(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stall(seconds=0.05, after=["a"]), Reply.stall(seconds=0.05, after=["b"]))
    async with sdk(fake_llm) as client:
        chunks = await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
        whole = await client.chat.completions.create(model="m", messages=USER)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert whole.choices[0].message.content == "b"


async def test_sdk_stream_error_event(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.stream_error(after=["par"], message="overloaded"), Reply.stream_error(message="boom"))
    received: list[str] = []
    async with sdk(fake_llm) as client:
        stream = await client.chat.completions.create(model="m", messages=USER, stream=True)
        with pytest.raises(openai.APIError) as info:
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
        with pytest.raises(openai.InternalServerError):
            await client.chat.completions.create(model="m", messages=USER)
    assert "overloaded" in str(info.value)
    assert "".join(received) == "par"


async def test_sdk_garbage_replies(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.garbage(b"<html>not json</html>", status=200, content_type="application/json"),
        Reply.garbage(b"data: <html>not json</html>\n\n", content_type="text/event-stream"),
        Reply.garbage(b"<html>bad gateway</html>", status=502, content_type="text/html"),
        Reply.garbage(b"<html>not json</html>", status=200, content_type="text/html"),
    )
    async with sdk(fake_llm) as client:
        with pytest.raises(ValueError):  # json.JSONDecodeError
            await client.chat.completions.create(model="m", messages=USER)
        with pytest.raises(ValueError):
            await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
        with pytest.raises(openai.InternalServerError):
            await client.chat.completions.create(model="m", messages=USER, stream=True)
        # Documented SDK behaviour: a 200 text/html body on a stream yields no chunks at
        # all (no error), so the caller must treat "no finish_reason" as a failure.
        chunks = await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
    assert chunks == []


def test_raw_sse_events_are_sent_verbatim(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.sse(Reply.chunk({"content": "a"}), "{not json", Reply.chunk({}, "stop", x_vendor={"k": 1})),
        Reply.sse(Reply.chunk({"content": "b"}), done=False),
    )
    first = raw_post(fake_llm, {"model": "m", "messages": USER, "stream": True})
    payloads = sse_payloads(first.text)
    assert json.loads(payloads[0])["choices"][0]["delta"] == {"content": "a"}
    assert payloads[1] == "{not json"
    assert json.loads(payloads[2])["x_vendor"] == {"k": 1} and payloads[3] == "[DONE]"
    second = raw_post(fake_llm, {"model": "m", "messages": USER, "stream": True})
    assert sse_payloads(second.text)[-1] != "[DONE]"
    fake_llm.push(Reply.sse("{}"))
    assert raw_post(fake_llm, {"model": "m", "messages": USER}).status_code == 500


async def test_sdk_sse_unknown_fields_pass_and_malformed_json_raises(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(
        Reply.sse(Reply.chunk({"content": "hi", "x_new": [1]}, x_vendor="yes"), Reply.chunk({}, "stop")),
        Reply.sse(Reply.chunk({"content": "par"}), "{not json"),
    )
    async with sdk(fake_llm) as client:
        chunks = await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))
        assert chunks[0].choices[0].delta.content == "hi" and chunks[-1].choices[0].finish_reason == "stop"
        with pytest.raises(ValueError):  # json.JSONDecodeError, raised while iterating
            await collect(await client.chat.completions.create(model="m", messages=USER, stream=True))


async def test_sdk_empty_queue_says_script_ran_out(fake_llm: FakeOpenAIServer) -> None:
    async with sdk(fake_llm) as client:
        with pytest.raises(openai.InternalServerError) as info:
            await client.chat.completions.create(model="m", messages=USER, stream=True)
    assert "ran out" in str(info.value)


async def test_sdk_requests_are_recorded(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("ok"))
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    async with sdk(fake_llm) as client:
        await collect(
            await client.chat.completions.create(
                model="fake-model",
                messages=[{"role": "system", "content": "sys"}, *USER],
                tools=tools,
                stream=True,
                stream_options={"include_usage": True},
            )
        )
    (request,) = fake_llm.wait_for_requests(1)
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test"
    assert request.headers["content-type"] == "application/json"
    assert request.body["model"] == "fake-model" and request.model == "fake-model"
    assert request.body["tools"] == tools
    assert request.messages[-1] == {"role": "user", "content": "hi"}
    assert request.stream is True
    assert fake_llm.last_request is request


async def test_sdk_models_list(fake_llm: FakeOpenAIServer) -> None:
    async with sdk(fake_llm) as client:
        page = await client.models.list()
    assert [m.id for m in page.data] == ["fake-model"]


# --------------------------------------------------------------------------- server API


def test_responder_is_used_when_queue_is_empty() -> None:
    seen: list[str] = []

    def responder(request: Any) -> Reply:
        seen.append(request.messages[-1]["content"])
        return Reply.text(f"echo: {request.messages[-1]['content']}")

    with FakeOpenAIServer(script=[Reply.text("queued")], responder=responder) as server:
        first = raw_post(server, {"model": "m", "messages": [{"role": "user", "content": "one"}]}).json()
        second = raw_post(server, {"model": "m", "messages": [{"role": "user", "content": "two"}]}).json()
        server.responder = lambda request: None  # None means "no answer": 500
        third = raw_post(server, {"model": "m", "messages": USER})
    assert first["choices"][0]["message"]["content"] == "queued"
    assert second["choices"][0]["message"]["content"] == "echo: two"
    assert seen == ["two"]
    assert third.status_code == 500 and "ran out" in third.json()["error"]["message"]


def test_responder_exception_is_reported() -> None:
    def responder(request: Any) -> Reply:
        raise RuntimeError("oops")

    with FakeOpenAIServer(responder=responder) as server:
        resp = raw_post(server, {"model": "m", "messages": USER})
    assert resp.status_code == 500 and "oops" in resp.json()["error"]["message"]


def test_push_pending_clear_and_wait_timeout(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("a"), Reply.text("b"))
    assert fake_llm.pending == 2
    raw_post(fake_llm, {"model": "m", "messages": USER})
    assert fake_llm.pending == 1
    assert len(fake_llm.wait_for_requests(1, timeout=0.5)) == 1
    with pytest.raises(TimeoutError):
        fake_llm.wait_for_requests(2, timeout=0.05)
    fake_llm.clear()
    assert fake_llm.pending == 0 and fake_llm.requests == []


def test_wait_for_requests_wakes_up_on_arrival(fake_llm: FakeOpenAIServer) -> None:
    fake_llm.push(Reply.text("a"))
    threading.Timer(0.05, lambda: raw_post(fake_llm, {"model": "m", "messages": USER})).start()
    assert len(fake_llm.wait_for_requests(1, timeout=2)) == 1


def test_lifecycle_and_base_url() -> None:
    server = FakeOpenAIServer(model="m1", models=["m2"])
    with pytest.raises(RuntimeError):
        _ = server.base_url
    with server:
        assert server.running
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        ids = [m["id"] for m in httpx.get(server.base_url + "/models", trust_env=False).json()["data"]]
        assert ids == ["m1", "m2"]
    assert not server.running
    server.stop()  # idempotent


def test_stop_is_fast_during_stall() -> None:
    server = FakeOpenAIServer()
    server.start()
    server.push(Reply.stall(seconds=60, after=["a"]))
    errors: list[BaseException] = []

    def consume() -> None:
        try:
            with httpx.stream(
                "POST",
                server.base_url + "/chat/completions",
                json={"model": "m", "messages": USER, "stream": True},
                trust_env=False,
                timeout=10,
            ) as resp:
                for _ in resp.iter_lines():
                    pass
        except BaseException as exc:  # noqa: BLE001 - the abrupt close is expected
            errors.append(exc)

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    server.wait_for_requests(1)
    time.sleep(0.05)  # let the stall begin
    start = time.monotonic()
    server.stop()
    # Far less than the scripted stall: stop() does not wait for it (a hang guard, not a speed test).
    assert time.monotonic() - start < 10
    thread.join(timeout=2)
    assert not thread.is_alive()
    assert errors and isinstance(errors[0], httpx.RemoteProtocolError)  # cut off, no [DONE]


def test_fixture_sets_no_proxy(fake_llm: FakeOpenAIServer) -> None:
    for name in ("NO_PROXY", "no_proxy"):
        entries = os.environ[name].split(",")
        assert "127.0.0.1" in entries and "localhost" in entries


def test_split_helpers() -> None:
    text = "  Hello,  world\n\n- item one\n"
    assert "".join(split_words(text)) == text
    assert split_words("a b c") == ["a ", "b ", "c"]
    assert split_words("") == []
    pieces = split_json({"path": "README.md"})
    assert len(pieces) == 3 and all(pieces) and json.loads("".join(pieces)) == {"path": "README.md"}
    assert split_json("{}", parts=3) == ["{", "}"]
    assert ToolCall.of(("c", "n", "{}")).arguments == ("{}",)


# --------------------------------------------------------------------------- YAML scripts


SCRIPT = r"""
model: test-model
chunk_delay: 0
default_reply: "no idea"
rules:
  - match: '\b(hello|hi)\b'
    replies:
      - text: "Hi there"
  - match: readme
    replies:
      - text: "Let me read it."
        tool_calls: [{name: read_file, arguments: {path: README.md}}]
      - text: "The README says hi."
  - match: think
    reply:
      reasoning: "pondering deeply"
      text: "Answer."
"""


def convo(*roles_and_text: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"role": role, "content": text} for role, text in roles_and_text]


def test_message_helpers() -> None:
    messages = convo(("system", "s"), ("user", "first"), ("assistant", "a"), ("user", "second"))
    assert last_user_text(messages) == "second"
    assert assistant_turns_since_last_user(messages) == 0
    messages += convo(("assistant", ""), ("tool", "result"), ("assistant", ""))
    assert assistant_turns_since_last_user(messages) == 2
    assert last_user_text([{"role": "user", "content": [{"type": "text", "text": "parts"}]}]) == "parts"
    assert last_user_text(convo(("system", "s"))) is None


def test_rule_selection_and_progression() -> None:
    script = DemoScript.from_yaml(SCRIPT)
    assert script.model == "test-model" and script.chunk_delay == 0
    assert script.select(convo(("user", "HELLO there"))).text == "Hi there"  # case-insensitive
    assert script.select(convo(("user", "what?"))).text == "no idea"
    assert script.select([]).text == "no idea"

    turn = convo(("user", "hi"), ("assistant", "Hi there"), ("user", "read the README"))
    first = script.select(turn)
    assert first.tool_calls[0].name == "read_file" and first.tool_calls[0].arguments == {"path": "README.md"}
    turn += [
        {"role": "assistant", "content": "Let me read it.", "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "# Readme"},
    ]
    assert script.select(turn).text == "The README says hi."
    turn += convo(("assistant", "The README says hi."))
    assert "nothing more" in script.select(turn).text  # exhausted


def test_first_matching_rule_wins() -> None:
    script = DemoScript.from_mapping(
        {"rules": [{"match": "a", "reply": "first"}, {"match": "ab", "reply": "second"}]}
    )
    assert script.select(convo(("user", "ab"))) == ReplySpec(text="first")


def test_build_reply_from_spec() -> None:
    script = DemoScript.from_yaml(SCRIPT)
    text = script.build(script.select(convo(("user", "hello"))))
    assert text.content == ("Hi ", "there") and text.finish_reason == "stop" and text.delay == 0

    tool = script.build(script.select(convo(("user", "readme"))))
    assert tool.finish_reason == "tool_calls"
    (call,) = tool.calls
    assert call.name == "read_file" and call.id.startswith("call_")
    assert 2 <= len(call.arguments) <= 3 and json.loads(call.arguments_json) == {"path": "README.md"}

    thought = script.build(script.select(convo(("user", "think"))))
    assert "".join(thought.reasoning) == "pondering deeply" and len(thought.reasoning) == 2


@pytest.mark.parametrize(
    "bad",
    [
        "rules: [{match: '(', reply: x}]",
        "rules: [{match: x}]",
        "rules: [{match: x, reply: {text: y, colour: red}}]",
        "rules: [{match: x, reply: {tool_calls: [{arguments: {}}]}}]",
        "rules: [{match: x, reply: {tool_calls: [{name: t, arguments: 'not json'}]}}]",
        "surprise: 1",
        "- a list",
    ],
)
def test_bad_scripts_are_rejected(bad: str) -> None:
    with pytest.raises(ScriptError):
        DemoScript.from_yaml(bad)


async def test_yaml_script_over_http_with_sdk() -> None:
    script = DemoScript.from_yaml(SCRIPT)
    with make_server(script) as server:
        async with sdk(server) as client:
            messages: list[dict[str, Any]] = [{"role": "user", "content": "please read the readme"}]
            chunks = await collect(await client.chat.completions.create(model="test-model", messages=messages, stream=True))
            args = "".join(
                tc.function.arguments or "" for c in chunks for tc in (c.choices[0].delta.tool_calls or [])
            )
            call_id = next(tc.id for c in chunks for tc in (c.choices[0].delta.tool_calls or []) if tc.id)
            assert json.loads(args) == {"path": "README.md"}
            messages += [
                {
                    "role": "assistant",
                    "content": "Let me read it.",
                    "tool_calls": [
                        {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": args}}
                    ],
                },
                {"role": "tool", "tool_call_id": call_id, "content": "# Readme"},
            ]
            chunks = await collect(await client.chat.completions.create(model="test-model", messages=messages, stream=True))
            text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "The README says hi."
    assert len(server.requests) == 2


def test_demo_yaml_covers_the_tui() -> None:
    script = load_script(REPO_ROOT / "tests/fakes/demo.yaml")
    assert script.model == "demo-model" and script.chunk_delay > 0
    specs = [spec for rule in script.rules for spec in rule.replies]
    calls = {call.name: call.arguments for spec in specs for call in spec.tool_calls}
    assert calls["read_file"] == {"path": "README.md"}
    assert calls["list_directory"] == {"path": "."}
    assert "pattern" in calls["grep_search"]
    assert calls["write_file"]["path"] == "demo-notes.md" and "content" in calls["write_file"]
    assert calls["run_shell_command"] == {"command": "ls -la"}
    assert any(spec.reasoning for spec in specs)
    markdown = "\n".join(spec.text for spec in specs)
    assert "\n# " in markdown and "\n1. " in markdown and "```python" in markdown and "|---" in markdown
    # each prompt suggested by the default reply reaches a rule
    for prompt in ["hello", "show me some markdown", "read the readme", "list the files", "search for TODO",
                   "write a file", "edit the notes", "run ls", "think it through", "take the tour"]:
        assert script.find_rule(convo(("user", prompt))) is not None, prompt
    assert script.find_rule(convo(("user", "read the readme"))).replies[0].tool_calls[0].name == "read_file"
    assert script.find_rule(convo(("user", "run ls"))).replies[0].tool_calls[0].name == "run_shell_command"
    assert script.find_rule(convo(("user", "write a file"))).replies[0].tool_calls[0].name == "write_file"
    assert script.find_rule(convo(("user", "edit the notes"))).replies[0].tool_calls[0].name == "edit"


def test_serve_cli_prints_its_url_and_serves() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.serve", "tests/fakes/demo.yaml", "--port", "0"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            line = proc.stdout.readline().strip()
            assert line.startswith("listening on http://127.0.0.1:") and line.endswith("/v1")
            url = line.removeprefix("listening on ")
            models = httpx.get(url + "/models", trust_env=False, timeout=5).json()
            assert [m["id"] for m in models["data"]] == ["demo-model"]
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=5) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
