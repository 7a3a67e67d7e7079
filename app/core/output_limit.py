"""An answer the output-token limit cut off in the middle of a tool call's arguments.

The server says so with ``finish_reason: "length"``; the call's arguments then end mid-JSON. Told
only "invalid JSON, call again", a model writes the same long call and is cut at the same place, and
the person never learns a setting was in the way. Both are told what happened instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.history import ToolCall

SETTING = "model.max_output_tokens"


def _limit(max_tokens: int | None) -> str:
    return f"{max_tokens:,} tokens" if max_tokens else "the server's default"


def _unparsable(calls: Sequence[ToolCall]) -> list[ToolCall]:
    cut = []
    for call in calls:
        try:
            call.parsed_arguments()
        except ValueError:
            cut.append(call)
    return cut


def cut_notice(finish_reason: str | None, calls: Sequence[ToolCall], max_tokens: int | None) -> str | None:
    """What the person reads when the limit cut a call's arguments; None when it did not."""
    cut = _unparsable(calls) if finish_reason == "length" else []
    if not cut:
        return None
    names = ", ".join(call.name for call in cut)
    return (
        f"The model reached its output-token limit ({_limit(max_tokens)}) in the middle of the arguments "
        f"of {names}; the call was not run. Raise {SETTING} in settings.yaml if the model needs longer answers."
    )


def for_model(call: ToolCall, max_tokens: int | None) -> str:
    """The tool result the model reads for a call the limit cut."""
    return (
        f"Error: your answer reached the output-token limit ({_limit(max_tokens)}) while writing the arguments "
        f"of this {call.name} call, so they were cut off and the call was not run. Calling it again the same "
        "way will be cut at the same place: send smaller pieces (for example write a long file in several "
        f"steps). The person can raise the limit ({SETTING})."
    )
