"""One-shot questions to the model off the conversation: recall, forget, recap, suggestions.

A side query never touches the session history. With a JSON schema it asks for
structured output and falls back gracefully on servers that do not support it.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from app.core.history import Message
from app.core.llm.errors import LLMError
from app.core.llm.provider import Provider
from app.core.llm.types import ChatRequest

_FENCE = re.compile(r"^```(?:json)?\s*\n(.*?)\n```\s*$", re.S)


async def side_query(
    provider: Provider,
    *,
    system: str,
    prompt: str | list[Message],
    schema: dict[str, Any] | None = None,
    timeout: float = 30.0,
    max_tokens: int | None = None,
    temperature: float | None = None,
    model: str | None = None,
) -> Any:
    """The model's answer: parsed JSON when ``schema`` is given, else the text.

    Raises LLMError (kind ``timeout`` past ``timeout`` seconds, ``bad_response`` when
    the answer is not the JSON asked for).
    """
    messages = [Message.user(prompt)] if isinstance(prompt, str) else list(prompt)
    formats: list[dict[str, Any] | None] = [None]
    if schema is not None:
        formats = [
            {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": False}},
            {"type": "json_object"},
            None,
        ]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last_error: LLMError | None = None
    for response_format in formats:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        request = ChatRequest(
            system=system,
            messages=messages,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            response_format=response_format,
        )
        try:
            completion = await asyncio.wait_for(provider.complete(request, timeout=remaining), remaining)
        except asyncio.TimeoutError:
            raise LLMError(f"The side query did not finish within {timeout:g} s.", kind="timeout") from None
        except LLMError as error:
            # A server that does not know response_format answers 400; try the next, plainer form.
            if error.kind == "bad_request" and response_format is not None:
                last_error = error
                continue
            raise
        text = completion.message.content
        if schema is None:
            return text
        return parse_json_answer(text, schema)
    if last_error is not None:
        raise last_error
    raise LLMError(f"The side query did not finish within {timeout:g} s.", kind="timeout")


def parse_json_answer(text: str, schema: dict[str, Any]) -> Any:
    """The JSON value in a model's answer (fenced or bare), checked for required keys."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        value = _first_json_object(body)
    if value is None:
        raise LLMError("The model's answer to a side query was not the JSON that was asked for.", kind="bad_response")
    required = schema.get("required", []) if isinstance(schema, dict) else []
    if required and (not isinstance(value, dict) or any(k not in value for k in required)):
        missing = [k for k in required if not isinstance(value, dict) or k not in value]
        raise LLMError(
            f"The model's answer to a side query lacks the field(s): {', '.join(missing)}.", kind="bad_response"
        )
    return value


def _first_json_object(text: str) -> Any:
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = decoder.raw_decode(text, index)
            except json.JSONDecodeError:
                continue
            return value
    return None
