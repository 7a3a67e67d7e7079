"""The text a loaded skill puts into the context, and the placeholders that stand in for it."""

from __future__ import annotations

from pathlib import Path

# Skill authors may place the invocation's arguments themselves; otherwise they follow the body.
ARGUMENTS_PLACEHOLDER = "$ARGUMENTS"


def build_skill_llm_content(base_dir: Path | str, body: str) -> str:
    """The body behind a line naming its directory, so relative paths in it can be resolved."""
    return (
        f"Base directory for this skill: {base_dir}\n"
        "Important: ALWAYS resolve absolute paths from this base directory when working with skills.\n\n"
        f"{body}\n"
    )


def with_arguments(body: str, args: str | None) -> str:
    """The body with the caller's arguments: in place of ``$ARGUMENTS``, else on a last line."""
    if not args or not args.strip():
        return body.replace(ARGUMENTS_PLACEHOLDER, "")
    if ARGUMENTS_PLACEHOLDER in body:
        return body.replace(ARGUMENTS_PLACEHOLDER, args)
    return f"{body}\n\nARGUMENTS: {args}"


def unload_placeholder(name: str) -> str:
    """What replaces a skill's content in the history after /unskill."""
    return f"[Skill '{name}' unloaded via /unskill; invoke the Skill tool again to reload.]"


def already_loaded_message(name: str) -> str:
    return f'Skill "{name}" is already loaded in context.'
