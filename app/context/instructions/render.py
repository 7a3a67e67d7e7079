"""How instruction text is wrapped for the prompt (Qwen Code's concatenate_instructions)."""

from __future__ import annotations

from collections.abc import Iterable

BLOCK_SEPARATOR = "\n\n"


def context_block(display_path: str, content: str) -> str:
    return f"--- Context from: {display_path} ---\n{content}\n--- End of Context from: {display_path} ---"


def join_blocks(blocks: Iterable[str]) -> str:
    return BLOCK_SEPARATOR.join(blocks)
