"""What the endpoint served from its prompt cache: the cached prefix of the last request, and the hit rate.

OpenAI-compatible servers report ``usage.prompt_tokens_details.cached_tokens``: how many
tokens at the start of the prompt they did not have to compute again. The map marks the
parts of the last request inside that prefix. Parts are counted in this app's tokens and
the server counts its own (its chat template adds some), so the prefix is scaled by the
server's prompt total over ours before it is laid over the parts, and a part counts as
cached only when it ends inside the prefix; the mark is a close reading, not exact.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.request import RequestPart
from app.core.history import Usage


def cached_part_ids(parts: Sequence[RequestPart], cached_tokens: int, reported_prompt_tokens: int | None) -> set[int]:
    """The ``id()`` of each part that lies wholly inside the cached prefix, in request order."""
    if cached_tokens <= 0 or not parts:
        return set()
    tracked = sum(p.tokens for p in parts)
    prefix = cached_tokens * tracked / reported_prompt_tokens if reported_prompt_tokens else cached_tokens
    inside: set[int] = set()
    end = 0
    for part in parts:
        end += part.tokens
        if end > prefix:
            break
        inside.add(id(part))
    return inside


def _rate(cached: int, prompt: int) -> str:
    return f"{cached:,} of {prompt:,} prompt tokens ({100 * cached / prompt:.0f}%)" if prompt else "no prompt tokens reported"


def cache_lines(last: Usage | None, session: Usage | None) -> list[str]:
    """The prompt-cache lines of /context: the last request's hit and the session's."""
    lines = ["Prompt cache (as the endpoint reported it):"]
    if last is None or not last.prompt_tokens:
        lines.append("  last request: not reported")
    else:
        lines.append(f"  last request: {_rate(last.cached_tokens, last.prompt_tokens)} served from the cache")
    if session is None or not session.prompt_tokens:
        lines.append("  this session: not reported")
    else:
        lines.append(f"  this session: {_rate(session.cached_tokens, session.prompt_tokens)} served from the cache")
    if (session is not None and session.prompt_tokens and not session.cached_tokens) and (last is None or not last.cached_tokens):
        lines.append("  (the endpoint reports no cached tokens: it may not cache prompts, or not say so)")
    return lines
