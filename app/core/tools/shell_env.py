"""The environment a shell command gets: the agent's own, without the credentials in it.

The model's key reaches the agent as ``OPENAI_API_KEY`` and would reach every command with it (``env``
prints it; one ``curl`` sends it anywhere). A command needs a credential only when the user runs a tool
that uses one, so what looks like one is left out of every command's environment, approved or not:
``OPENAI_*`` and the other endpoints' variables, and any name ending in ``_KEY``, ``_TOKEN``,
``_SECRET``, ``_PASSWORD`` or ``_CREDENTIALS`` (``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``,
``NPM_TOKEN``...). A command the program runs unasked also loses ``SSH_AUTH_SOCK``: an agent socket
signs for whoever can reach it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(
    r"^(?:OPENAI|ANTHROPIC|DASHSCOPE|GEMINI|GOOGLE_API|AZURE_OPENAI|OPENROUTER|MISTRAL|GROQ|DEEPSEEK|QWEN)_"
    r"|(?:_|^)(?:API_?KEY|KEY|TOKEN|SECRET|SECRET_ACCESS_KEY|PASSWORD|PASSWD|CREDENTIALS?)$",
    re.IGNORECASE,
)
UNASKED_ONLY = ("SSH_AUTH_SOCK",)


def is_secret_name(name: str) -> bool:
    return _SECRET_NAME.search(name) is not None


def command_environment(base: Mapping[str, str], *, unasked: bool = False) -> dict[str, str]:
    """``base`` without the variables that hold credentials (and, ``unasked``, the SSH agent's socket)."""
    return {k: v for k, v in base.items() if not is_secret_name(k) and not (unasked and k in UNASKED_ONLY)}
