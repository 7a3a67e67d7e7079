"""Asking the model for a recap: one side query, no tools, a short answer."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.history import Message
from app.core.llm.provider import Provider
from app.core.llm.side_query import side_query
from app.core.session.recap import (
    RECAP_MAX_OUTPUT_TOKENS,
    RECAP_SYSTEM_PROMPT,
    RECAP_TEMPERATURE,
    extract_recap,
    recap_messages,
    recap_request,
)

RECAP_TIMEOUT_SECONDS = 30.0


async def generate_recap(provider: Provider, history: Sequence[Message], *, timeout: float = RECAP_TIMEOUT_SECONDS) -> str | None:
    """The recap text; None when the conversation is too short for one.

    An answer without usable text gives ''; a failed request raises LLMError.
    """
    dialog = recap_messages(history)
    if dialog is None:
        return None
    answer = await side_query(
        provider,
        system=RECAP_SYSTEM_PROMPT,
        prompt=recap_request(dialog),
        max_tokens=RECAP_MAX_OUTPUT_TOKENS,
        temperature=RECAP_TEMPERATURE,
        timeout=timeout,
    )
    return extract_recap(answer)
