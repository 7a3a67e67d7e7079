"""Which set of tool-call examples suits the model."""

from __future__ import annotations

import re
from collections.abc import Mapping

TOOL_CALL_STYLE_ENV = "AGENTCTX_TOOL_CALL_STYLE"
QWEN_CODER, QWEN_VL, GENERAL = "qwen-coder", "qwen-vl", "general"
STYLES = (QWEN_CODER, QWEN_VL, GENERAL)

# Longer names are not matched at all, so a pathological model string cannot make the regexes expensive.
_MAX_MODEL_LENGTH = 100
_CODER = (re.compile(r"qwen[^-]*-coder", re.IGNORECASE), re.compile(r"coder-model", re.IGNORECASE))
_VL = re.compile(r"qwen[^-]*-vl", re.IGNORECASE)


def tool_call_style(model: str, env: Mapping[str, str]) -> str:
    """``qwen-coder``, ``qwen-vl`` or ``general``: a valid env override wins, then the model name decides."""
    forced = env.get(TOOL_CALL_STYLE_ENV, "").strip().lower()
    if forced in STYLES:
        return forced
    if len(model) < _MAX_MODEL_LENGTH:
        if any(p.search(model) for p in _CODER):
            return QWEN_CODER
        if _VL.search(model):
            return QWEN_VL
    return GENERAL
