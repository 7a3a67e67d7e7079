"""The simplest assembler: one fixed system prompt and the whole history, for forked agents and tests.

The main conversation's assembler (app/context/assembler.py) builds the layered prompt; a forked
agent (the memory agents, a summary) has its own fixed instructions and needs none of that.
"""

from __future__ import annotations

from app.dataclass import dataclass

from app.core.history import Message, Usage
from app.core.request import SYSTEM, AssembledRequest, RequestPart, message_parts, tool_schema_parts
from app.core.tokens import estimate_tokens


@dataclass
class StaticAssembler:
    """The simplest assembler: one fixed system prompt and the whole history (forked agents, tests)."""

    system_prompt: str
    model: str = ""
    context_window: int = 0

    def assemble(self, history: list[Message], tools: list[dict]) -> AssembledRequest:
        parts = [RequestPart(block=SYSTEM, kind="section", name="system prompt", source="static", text=self.system_prompt)]
        parts += tool_schema_parts(tools) + message_parts(history)
        for part in parts:
            part.tokens = estimate_tokens(part.text)
        return AssembledRequest(parts=parts, messages=list(history), tools=list(tools), model=self.model, context_window=self.context_window)

    def observe(self, request: AssembledRequest, usage: Usage | None) -> None:
        return None

    def reminders(self) -> list[str]:
        return []
