"""Tool names the model sees: ``mcp__<server>__<tool>``, in what OpenAI-compatible endpoints accept.

OpenAI (and vLLM, DashScope) take function names matching ``^[a-zA-Z0-9_-]{1,64}$``;
anything else is replaced by ``_`` and a longer name keeps its head and tail
around ``___`` (the tail tells tools of one server apart).
"""

from __future__ import annotations

import re

PREFIX = "mcp__"
MAX_NAME = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(text: str) -> str:
    return _INVALID.sub("_", text) or "_"


def tool_name(server: str, tool: str) -> str:
    name = f"{PREFIX}{sanitize(server)}__{sanitize(tool)}"
    if len(name) <= MAX_NAME:
        return name
    keep = MAX_NAME - 3
    head = keep // 2
    return f"{name[:head]}___{name[-(keep - head):]}"


def unique(name: str, taken: set[str]) -> str:
    """``name``, or with ``_2``, ``_3``… when two tools sanitize to the same text."""
    if name not in taken:
        return name
    for n in range(2, 10_000):
        suffix = f"_{n}"
        candidate = name[: MAX_NAME - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
    raise ValueError(f"too many tools named like {name}")
