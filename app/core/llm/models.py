"""What known model families take: context window sizes (spec: token limits) and images."""

from __future__ import annotations

import re

K32, K64, K128, K200, K256, M1 = 32_768, 65_536, 131_072, 200_000, 262_144, 1_000_000
DEFAULT_CONTEXT_WINDOW = K200
DEFAULT_OUTPUT_TOKEN_LIMIT = 32_000
# Qwen Code 0.24.4 asks for 4,000 output tokens when the window is 32 K: 32,000 would leave no room for the input.
SMALL_WINDOW_OUTPUT_TOKENS = 4_000
# Below this the answer cannot say much; the request is still sent, and the server may refuse it.
MIN_OUTPUT_TOKENS = 256

# First match wins, so the specific names come before the family catch-alls.
_WINDOWS: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"qwen3-coder-plus|coder-model|qwen3\.\d", re.I), M1),
    (re.compile(r"qwen3-max|qwen", re.I), K256),
    (re.compile(r"claude", re.I), K200),
    (re.compile(r"gpt-5", re.I), 272_000),
    (re.compile(r"gpt-4\.1", re.I), 1_047_576),
    (re.compile(r"gpt-4o|o[134](?:-|$)", re.I), 128_000),
    (re.compile(r"gemini", re.I), M1),
    (re.compile(r"deepseek", re.I), K128),
]


def context_window_for(model: str, override: int | None = None) -> int:
    """The configured window when set, else the family's window, else the default."""
    if override:
        return override
    for pattern, window in _WINDOWS:
        if pattern.search(model or ""):
            return window
    return DEFAULT_CONTEXT_WINDOW


def output_token_limit(window: int, override: int | None = None) -> int:
    """``max_tokens`` for a request: model.max_output_tokens when set, else 32,000 (4,000 on a window of 32 K or less)."""
    if override:
        return override
    return SMALL_WINDOW_OUTPUT_TOKENS if window <= K32 else DEFAULT_OUTPUT_TOKEN_LIMIT


def output_tokens_for(window: int, input_tokens: int, override: int | None = None) -> int:
    """The output limit, capped by what the window leaves after the input (some servers default to a few hundred)."""
    return max(MIN_OUTPUT_TOKENS, min(output_token_limit(window, override), window - input_tokens))


# Families that take images in chat messages; any other model is sent none unless model.vision says so.
_VISION = re.compile(r"\bvl\b|-vl|vision|omni|qvq|gpt-4o|gpt-4\.1|gpt-5|claude|gemini|llava|pixtral", re.I)


def takes_images(model: str, override: bool | None = None) -> bool:
    """Whether to send images to ``model``: the setting when given, else whether its family is known to take them."""
    if override is not None:
        return override
    return bool(_VISION.search(model or ""))
