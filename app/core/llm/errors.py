"""Turning whatever a model endpoint or the network throws into one clear sentence."""

from __future__ import annotations

import re
from app.dataclass import dataclass

# Phrases servers use when the prompt does not fit the window: OpenAI and vLLM ("maximum context length"),
# Anthropic-style proxies ("prompt is too long", "input is too long"), DashScope ("Range of input length
# should be [1, 30720]"), llama.cpp ("exceeds the context"), gateways ("input tokens exceed the limit").
CONTEXT_LENGTH = re.compile(
    r"context[_ ]length|maximum context|context window|too many tokens|(?:prompt|input) is too long"
    r"|exceeds? the (?:model'?s? |available )?(?:max|context)|range of input length|input (?:tokens? )?(?:length )?exceeds?"
    r"|tokens? exceeds? (?:the )?(?:configured |maximum )?limit|request too large|reduce the length",
    re.IGNORECASE,
)


@dataclass
class LLMError(Exception):
    """A failure talking to the model; ``message`` is what the person reads."""

    message: str
    kind: str = "error"  # auth | not_found | rate_limit | server | timeout | connection | context_length | bad_request | bad_response | stream | limit | interrupted
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None

    def __str__(self) -> str:
        return self.message


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        import time

        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds)


def _server_message(body: object, fallback: str) -> str:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if body.get("message"):
            return str(body["message"])
    text = fallback.strip()
    return text[:300]


def _sentence_part(text: str) -> str:
    """Server text placed inside our sentence: no doubled full stop at the end."""
    return text.strip().rstrip(".")


def from_status(status: int, body: object, text: str, headers: dict[str, str], *, base_url: str, model: str) -> LLMError:
    """The error for an HTTP error status from the endpoint."""
    detail = _sentence_part(_server_message(body, text))
    retry_after = parse_retry_after(headers.get("retry-after"))
    if status in (401, 403):
        return LLMError(
            f"The model endpoint rejected the API key (HTTP {status}): {detail}. "
            "Set OPENAI_API_KEY or model.api_key in settings.yaml.",
            kind="auth",
            status=status,
        )
    if status == 413:  # the body itself is too large: the same cure as a prompt over the window
        return LLMError(
            f"The request is larger than the model endpoint accepts (HTTP 413): {detail}.",
            kind="context_length",
            status=status,
        )
    if status == 404:
        return LLMError(
            f"The endpoint at {base_url} does not know the model '{model}' or the path (HTTP 404): {detail}. "
            "Check OPENAI_MODEL and OPENAI_BASE_URL (it usually ends in /v1).",
            kind="not_found",
            status=status,
        )
    if status == 429:
        return LLMError(
            f"The model endpoint is rate-limiting requests (HTTP 429): {detail}.",
            kind="rate_limit",
            status=status,
            retryable=True,
            retry_after=retry_after,
        )
    if status >= 500:
        return LLMError(
            f"The model endpoint had a server error (HTTP {status}): {detail}.",
            kind="server",
            status=status,
            retryable=True,
            retry_after=retry_after,
        )
    if CONTEXT_LENGTH.search(detail):
        return LLMError(
            f"The request is larger than the model's context window (HTTP {status}): {detail}.",
            kind="context_length",
            status=status,
        )
    return LLMError(f"The model endpoint refused the request (HTTP {status}): {detail}.", kind="bad_request", status=status)


def from_error_object(error: object) -> LLMError:
    """An error the endpoint reported inside a 200 answer (an ``error`` object or event)."""
    if isinstance(error, dict):
        message = str(error.get("message") or error.get("type") or error)
    else:
        message = str(error)
    message = _sentence_part(message)
    if CONTEXT_LENGTH.search(message):
        return LLMError(f"The request is larger than the model's context window: {message}.", kind="context_length")
    return LLMError(f"The model endpoint reported an error in the middle of the answer: {message}.", kind="stream")


def classify(exc: BaseException, *, base_url: str, model: str, read_timeout: float, mid_stream: bool = False) -> LLMError:
    """Map an exception from the HTTP layer (httpx2, the socket, the JSON decoder) to an LLMError.

    Matching on class names keeps httpx2's import off this module.
    """
    if isinstance(exc, LLMError):
        return exc
    names = {cls.__name__ for cls in type(exc).__mro__}
    if isinstance(exc, UnicodeEncodeError):
        # Encoding happens here, before anything is sent: the endpoint never saw this request.
        return LLMError(
            f"agentctx-tui could not encode the request for {base_url} ({exc.reason} at character {exc.start}); "
            "nothing was sent, and the endpoint is not at fault. Please report this with the session file.",
            kind="error",
        )
    if names & {"ReadTimeout", "TimeoutException", "ConnectTimeout", "PoolTimeout", "WriteTimeout", "TimeoutError"}:
        return silence(base_url, read_timeout)
    dropped = names & {"RemoteProtocolError", "ReadError", "StreamError", "IncompleteRead", "ConnectionResetError"}
    if dropped or (mid_stream and names & {"TransportError", "ConnectionError", "OSError"}):
        return LLMError(
            f"The connection to the model endpoint at {base_url} dropped in the middle of the answer.",
            kind="connection",
            retryable=True,
        )
    if names & {"TransportError", "ConnectError", "ConnectionError", "OSError"}:
        reason = _root_cause(exc)
        return LLMError(
            f"Could not reach the model endpoint at {base_url} ({reason}). Is the server running and the URL right?",
            kind="connection",
            retryable=True,
        )
    if names & {"JSONDecodeError", "ValueError", "DecodingError"}:
        return LLMError(
            f"The endpoint at {base_url} sent something that is not an OpenAI-compatible answer ({type(exc).__name__}).",
            kind="bad_response",
        )
    return LLMError(f"Unexpected error talking to the model endpoint: {type(exc).__name__}: {exc}", kind="error")


def _root_cause(exc: BaseException) -> str:
    seen = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    text = str(seen) or type(seen).__name__
    lowered = text.lower()
    if "refused" in lowered or isinstance(seen, ConnectionRefusedError) or "errno 111" in lowered:
        return "connection refused"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered:
        return "unknown host name"
    return text[:200]


def silence(base_url: str, read_timeout: float) -> LLMError:
    """No complete piece of the answer within ``model.read_timeout`` (comments and dripped bytes do not count)."""
    return LLMError(
        f"The model endpoint at {base_url} went silent for more than {read_timeout:g} s: no part of the answer "
        "arrived in that time (keep-alive comments and half-sent events do not count). The limit is "
        "model.read_timeout in settings.yaml.",
        kind="timeout",
        retryable=True,
    )


def past_deadline(base_url: str, request_timeout: float) -> LLMError:
    """The whole request took longer than ``model.request_timeout``; retrying would take as long again."""
    return LLMError(
        f"The answer from the model endpoint at {base_url} took longer than {request_timeout:g} s, the limit "
        "for one request; the stream was closed. Raise model.request_timeout in settings.yaml if answers "
        "this long are expected.",
        kind="limit",
    )


def line_too_long(base_url: str, limit: int) -> LLMError:
    return LLMError(
        f"The model endpoint at {base_url} sent one event-stream line longer than {limit:,} bytes; the stream "
        "was closed. The limit is model.max_line_bytes in settings.yaml.",
        kind="limit",
    )


def answer_too_long(base_url: str, limit: int) -> LLMError:
    return LLMError(
        f"The answer from the model endpoint at {base_url} grew past {limit:,} characters; the stream was "
        "closed. The limit is model.max_answer_chars in settings.yaml.",
        kind="limit",
    )


def redirected(base_url: str, status: int, location: str, *, url: str) -> LLMError:
    """A 3xx: named with its target, never followed (the API key would travel with the request)."""
    from urllib.parse import urljoin, urlsplit

    target = urljoin(url, location) if location else ""  # ``url``: the request's own address
    where = f" to {target}" if target else " without saying where (no Location header)"
    elsewhere = target and urlsplit(target).netloc != urlsplit(base_url).netloc
    host = f" on another host ({urlsplit(target).netloc})" if elsewhere else ""
    return LLMError(
        f"The endpoint at {base_url} answered with a redirect (HTTP {status}){where}{host}; agentctx-tui does "
        "not follow redirects, so the API key is never sent anywhere but the configured address. If that "
        "address is right, set OPENAI_BASE_URL or model.base_url in settings.yaml to it.",
        kind="bad_request",
        status=status,
    )


def interrupted_before_answer(base_url: str) -> LLMError:
    """The stream ended cleanly but with no ``[DONE]``, no finish reason and nothing shown: worth another try."""
    return LLMError(
        f"The model endpoint at {base_url} ended the stream before sending any part of the answer "
        "(no finish reason, no [DONE]).",
        kind="interrupted",
        retryable=True,
    )


def interrupted_answer(base_url: str) -> str:
    """What the person reads when an answer stopped in the middle without saying it was finished."""
    return (
        f"The answer was interrupted: the model endpoint at {base_url} ended the stream in the middle of the "
        "answer (no finish reason, no [DONE]). What arrived is kept, marked as interrupted; ask again to get "
        "the whole answer."
    )
