"""Summary compaction's model call: the prompt, one streamed side query, and the result checks.

One attempt, thinking off, at most 20,000 output tokens (a summary longer than that
is a failure, not something to retry). The checks follow the spec's order: empty
after stripping the analysis, truncated, then the token count.
"""

from __future__ import annotations

import asyncio
import math
import re
from app.dataclass import dataclass
from functools import lru_cache

from app.context.compaction.outcome import CompressionStatus
from app.context.compaction.pruning import cjk_count
from app.core.history import Message
from app.core.llm.provider import Provider
from app.core.llm.types import ChatRequest, FinishPiece, ReasoningPiece, TextPiece, UsagePiece
from app.templates import package_template

MAX_OUTPUT_TOKENS = 20_000
MAX_FOCUS_CHARS = 2_000
MAX_HOOK_CHARS = 4_000
FINAL_INSTRUCTION = "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML."
_CLOSED = re.compile(r"<analysis>[\s\S]*?</analysis>\s*")
_UNCLOSED = re.compile(r"<analysis>[\s\S]*$")




@lru_cache(maxsize=None)
def template(name: str) -> str:
    return package_template("app.context.compaction", name).strip()


def strip_analysis_block(text: str) -> str:
    """Remove closed <analysis> blocks, then an unclosed one running to the end; trim."""
    return _UNCLOSED.sub("", _CLOSED.sub("", text)).strip()


def estimate_summary_tokens(text: str) -> int:
    """CJK-aware estimate for a summary the server did not count."""
    cjk = cjk_count(text)
    return max(math.ceil(len(text) / 4), math.ceil((len(text) - cjk) / 4) + math.ceil(cjk * 1.5))


def sanitize_hook_text(text: str) -> str:
    """Hook output goes into the summarizer's instructions: escape tags, trim, cap."""
    return text.replace("<", "&lt;").replace(">", "&gt;").strip()[:MAX_HOOK_CHARS]


def compression_system_prompt(focus: str = "", hook_text: str = "") -> str:
    """The compression prompt, then the user's focus (first) and any hook text under "Additional Instructions"."""
    extras = [part for part in (focus.strip()[:MAX_FOCUS_CHARS], sanitize_hook_text(hook_text)) if part]
    prompt = template("compress")
    if extras:
        prompt += "\n\nAdditional Instructions:\n" + "\n\n".join(extras)
    return prompt


@dataclass
class SummaryOutcome:
    """What the summarizer request gave: the summary, the checks' verdict and the tokens it took."""

    status: CompressionStatus
    raw: str = ""
    summary: str = ""  # the raw text with the analysis stripped
    output_tokens: int = 0
    input_tokens: int = 0
    finish_reason: str | None = None
    error: str = ""


def _is_qwen(model: str) -> bool:
    return model.rsplit("/", 1)[-1].lower().startswith("qwen")


async def request_summary(
    provider: Provider,
    history: list[Message],
    *,
    system: str,
    max_output_tokens: int = MAX_OUTPUT_TOKENS,
    timeout: float = 180.0,
    extra_user: str = "",
) -> SummaryOutcome:
    """Stream one summary; never raises for a model failure (it becomes the outcome's status)."""
    final = FINAL_INSTRUCTION if not extra_user else f"{extra_user}\n\n{FINAL_INSTRUCTION}"
    # Thinking off where the server has a switch for it; other servers would reject the unknown field.
    extra = {"enable_thinking": False} if _is_qwen(provider.model) else {}
    request = ChatRequest(system=system, messages=[*history, Message.user(final)], max_tokens=max_output_tokens, temperature=0, extra_body=extra)
    text: list[str] = []
    outcome = SummaryOutcome(status=CompressionStatus.COMPRESSED)

    async def consume() -> None:
        async for piece in provider.stream(request):
            if isinstance(piece, TextPiece):
                text.append(piece.text)
            elif isinstance(piece, UsagePiece):
                outcome.output_tokens = piece.usage.completion_tokens
                outcome.input_tokens = piece.usage.prompt_tokens
            elif isinstance(piece, FinishPiece):
                outcome.finish_reason = piece.reason
            elif isinstance(piece, ReasoningPiece):
                continue  # a thinking model that ignores the switch: its thoughts are not the summary

    try:
        await asyncio.wait_for(consume(), timeout)
    except asyncio.TimeoutError:
        return SummaryOutcome(CompressionStatus.COMPRESSION_FAILED_TIMEOUT, raw="".join(text), error=f"the summarizer did not finish within {timeout:g} s")
    except Exception as exc:  # LLMError and anything the stream raises: the original history stays
        return SummaryOutcome(CompressionStatus.COMPRESSION_FAILED_MODEL_ERROR, raw="".join(text), error=str(exc))
    outcome.raw = "".join(text)
    return judge(outcome, max_output_tokens)


def judge(outcome: SummaryOutcome, max_output_tokens: int = MAX_OUTPUT_TOKENS) -> SummaryOutcome:
    """Apply the result checks in the spec's order (empty, then truncated)."""
    outcome.summary = strip_analysis_block(outcome.raw)
    if not outcome.raw.strip() or not outcome.summary:
        outcome.status = CompressionStatus.COMPRESSION_FAILED_EMPTY_SUMMARY
        return outcome
    if not outcome.output_tokens:
        outcome.output_tokens = estimate_summary_tokens(outcome.raw)
    if outcome.finish_reason == "length" or outcome.output_tokens >= max_output_tokens:
        outcome.status = CompressionStatus.COMPRESSION_FAILED_OUTPUT_TRUNCATED
        return outcome
    outcome.status = CompressionStatus.COMPRESSED
    return outcome
