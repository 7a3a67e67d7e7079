"""What to say when a request cannot fit the model's window: what it holds, part by part, and what can be done.

Sending it anyway would only be refused by the server (or silently cut by it), so the
turn stops with this message instead (headless: on stderr, exit 1).
"""

from __future__ import annotations

from app.core.request import AssembledRequest

# Group of the request (request.KIND_GROUPS) -> the words the message uses for it, in the order shown.
FIXED_GROUPS = {
    "System prompt": "system prompt",
    "Tool schemas": "tools",
    "Instruction files": "instruction files",
    "Memory": "memory",
    "Skills": "skills",
}
ADVICE_FIXED = (
    "To make it fit: set model.context_window if the model's window is really larger, load fewer or smaller "
    "instruction files (context.file_name, context.per_file_chars), or disable skills (skills.disabled)."
)
ADVICE_HISTORY = "Start a new session (/new), or /compress with a focus on what matters now."


def breakdown(request: AssembledRequest, fixed_messages: int, scale: float) -> tuple[dict[str, int], int]:
    """Tokens per fixed group (scaled to the gate's measure) and the conversation's own tokens."""
    groups = {name: 0 for name in FIXED_GROUPS}
    conversation = 0
    for part in request.parts:
        fixed = part.block != "messages" or (part.message_index is not None and part.message_index < fixed_messages)
        if fixed and part.group in groups:
            groups[part.group] += part.tokens
        elif fixed and part.block == "messages":
            groups["Skills" if part.kind == "skills_listing" else "System prompt"] += part.tokens
        else:
            conversation += part.tokens
    return {k: round(v * scale) for k, v in groups.items()}, round(conversation * scale)


def does_not_fit(request: AssembledRequest, *, tokens: int, window: int, fixed_messages: int, fixed_part: bool) -> str:
    scale = tokens / max(1, request.total_tokens)
    groups, conversation = breakdown(request, fixed_messages, scale)
    fixed = sum(groups.values())
    parts = ", ".join(f"{FIXED_GROUPS[name]} {value:,}" for name, value in groups.items())
    if fixed_part:
        head = f"Even the fixed part of the request does not fit the model's context window: {fixed:,} tokens for a {window:,}-token window"
        advice = ADVICE_FIXED
    else:
        head = f"The request does not fit the model's context window even after compacting: {tokens:,} tokens for a {window:,}-token window"
        advice = f"{ADVICE_HISTORY} {ADVICE_FIXED}" if fixed >= window // 2 else ADVICE_HISTORY
    return f"{head} ({parts}; the conversation {conversation:,}). Nothing was sent. {advice}"
