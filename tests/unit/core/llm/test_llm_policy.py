"""Retry policy, Retry-After parsing, HTTP status mapping, context windows, side-query JSON parsing."""

from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from app.core.llm.errors import LLMError, classify, from_status, parse_retry_after
from app.core.llm.models import DEFAULT_CONTEXT_WINDOW, context_window_for
from app.core.llm.retry import RetryPolicy
from app.core.llm.side_query import parse_json_answer


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = 1_000_000.0
    assert parse_retry_after(formatdate(now + 10, usegmt=True), now=now) == pytest.approx(10, abs=1)


def _retryable(after: float | None = None) -> LLMError:
    return LLMError("busy", kind="server", retryable=True, retry_after=after)


def test_policy_gives_up_on_non_retryable_errors() -> None:
    policy = RetryPolicy()
    assert policy.delay_for(LLMError("bad key", kind="auth"), 1, 0.0) is None


def test_policy_is_bounded_in_count() -> None:
    policy = RetryPolicy(max_retries=2, jitter=0)
    assert policy.delay_for(_retryable(), 1, 0.0) == 1.0
    assert policy.delay_for(_retryable(), 2, 1.0) == 2.0
    assert policy.delay_for(_retryable(), 3, 3.0) is None


def test_policy_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(max_retries=10, base_delay=1, max_delay=5, jitter=0, max_total_seconds=1000)
    delays = [policy.delay_for(_retryable(), n, 0.0) for n in range(1, 6)]
    assert delays == [1, 2, 4, 5, 5]


def test_policy_jitter_stays_within_its_spread() -> None:
    policy = RetryPolicy(base_delay=2, jitter=0.25)
    rng = random.Random(7)
    for _ in range(50):
        delay = policy.delay_for(_retryable(), 1, 0.0, rng)
        assert delay is not None and 1.5 <= delay <= 2.5


def test_policy_honours_retry_after_over_backoff() -> None:
    policy = RetryPolicy(base_delay=1, jitter=0)
    assert policy.delay_for(_retryable(after=7), 1, 0.0) == 7


def test_policy_refuses_to_wait_past_the_time_budget() -> None:
    policy = RetryPolicy(max_total_seconds=10)
    assert policy.delay_for(_retryable(after=30), 1, 0.0) is None
    assert policy.delay_for(_retryable(after=4), 1, 7.0) is None
    assert policy.delay_for(_retryable(after=4), 1, 5.0) == 4


@pytest.mark.parametrize(
    ("status", "kind", "retryable", "phrase"),
    [
        (401, "auth", False, "rejected the API key"),
        (403, "auth", False, "OPENAI_API_KEY"),
        (404, "not_found", False, "does not know the model 'm1'"),
        (429, "rate_limit", True, "rate-limiting"),
        (500, "server", True, "server error (HTTP 500)"),
        (503, "server", True, "HTTP 503"),
        (400, "bad_request", False, "refused the request"),
    ],
)
def test_status_mapping(status: int, kind: str, retryable: bool, phrase: str) -> None:
    error = from_status(status, {"error": {"message": "nope"}}, "", {}, base_url="http://h/v1", model="m1")
    assert error.kind == kind
    assert error.retryable is retryable
    assert phrase in error.message
    assert "nope" in error.message


def test_context_length_400_is_recognised() -> None:
    body = {"error": {"message": "This model's maximum context length is 8192 tokens"}}
    error = from_status(400, body, "", {}, base_url="u", model="m")
    assert error.kind == "context_length"
    assert "context window" in error.message


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",  # OpenAI, vLLM
        "prompt is too long: 210000 tokens > 200000 maximum",  # Anthropic-style proxies
        "Input is too long for requested model.",  # Bedrock through gateways
        "Range of input length should be [1, 30720]",  # DashScope
        "the request exceeds the available context size, try increasing it",  # llama.cpp server
        "input tokens exceed the configured limit of 272000 tokens",  # gateways
        "Please reduce the length of the messages or completion.",
    ],
)
def test_the_common_too_long_error_shapes_are_recognised(message: str) -> None:
    error = from_status(400, {"error": {"message": message}}, "", {}, base_url="u", model="m")
    assert error.kind == "context_length", message


def test_413_is_a_request_too_large_for_the_endpoint() -> None:
    error = from_status(413, None, "Request Entity Too Large", {}, base_url="u", model="m")
    assert error.kind == "context_length" and "HTTP 413" in error.message


def test_other_400s_are_not_mistaken_for_an_overflow() -> None:
    for message in ("Invalid model name passed in model=nope", "messages: roles must alternate", "temperature out of range"):
        assert from_status(400, {"error": {"message": message}}, "", {}, base_url="u", model="m").kind == "bad_request"


def test_retry_after_header_reaches_the_error() -> None:
    error = from_status(429, None, "slow down", {"retry-after": "2"}, base_url="u", model="m")
    assert error.retry_after == 2.0
    assert "slow down" in error.message


def test_classify_uses_class_names_of_the_http_layer() -> None:
    class ReadTimeout(Exception):
        pass

    class RemoteProtocolError(Exception):
        pass

    class ConnectError(Exception):
        pass

    assert classify(ReadTimeout(), base_url="u", model="m", read_timeout=3).kind == "timeout"
    dropped = classify(RemoteProtocolError("peer closed"), base_url="u", model="m", read_timeout=3)
    assert dropped.kind == "connection" and "dropped" in dropped.message
    refused = ConnectError("All connection attempts failed")
    refused.__cause__ = ConnectionRefusedError("[Errno 111] Connection refused")
    error = classify(refused, base_url="http://127.0.0.1:9/v1", model="m", read_timeout=3)
    assert "connection refused" in error.message and error.retryable


def test_context_windows_by_family_and_override() -> None:
    assert context_window_for("qwen3-coder-plus") == 1_000_000
    assert context_window_for("qwen3.5-plus") == 1_000_000
    assert context_window_for("qwen3-max") == 262_144
    assert context_window_for("qwen2.5-7b-instruct") == 262_144
    assert context_window_for("claude-sonnet-4") == 200_000
    assert context_window_for("gpt-5-mini") == 272_000
    assert context_window_for("gemini-2.5-pro") == 1_000_000
    assert context_window_for("deepseek-chat") == 131_072
    assert context_window_for("some-local-model") == DEFAULT_CONTEXT_WINDOW
    assert context_window_for("qwen3-coder-plus", 32_768) == 32_768


def test_json_answer_bare_fenced_and_embedded() -> None:
    schema = {"type": "object", "required": ["ids"]}
    assert parse_json_answer('{"ids": [1]}', schema) == {"ids": [1]}
    assert parse_json_answer('```json\n{"ids": []}\n```', schema) == {"ids": []}
    assert parse_json_answer('Sure! {"ids": [2]} hope that helps', schema) == {"ids": [2]}


def test_json_answer_errors_are_clear() -> None:
    with pytest.raises(LLMError, match="not the JSON"):
        parse_json_answer("no json here", {})
    with pytest.raises(LLMError, match="lacks the field"):
        parse_json_answer('{"other": 1}', {"required": ["ids"]})
