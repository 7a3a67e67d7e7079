"""The built-in part of the system prompt (sections 1-6), each section from a packaged template."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.context.prompt import sections as names
from app.context.prompt.base import template, template_source
from app.context.prompt.sections import PromptSection
from app.context.prompt.tool_style import GENERAL, QWEN_CODER, QWEN_VL, tool_call_style
from app.paths import find_git_root

SANDBOX_ENV = "SANDBOX"
SEATBELT = "sandbox-exec"
SECTION_GAP = "\n\n"

_EXAMPLE_TEMPLATES = {
    QWEN_CODER: "tool_examples_qwen_coder",
    QWEN_VL: "tool_examples_qwen_vl",
    GENERAL: "tool_examples_general",
}


def sandbox_template(env: Mapping[str, str]) -> str:
    """Exactly one of the three sandbox sections, from the ``SANDBOX`` variable the sandbox launcher sets."""
    sandbox = env.get(SANDBOX_ENV, "")
    if sandbox == SEATBELT:
        return "sandbox_seatbelt"
    return "sandbox_container" if sandbox else "sandbox_none"


def examples_template(style: str) -> str:
    return _EXAMPLE_TEMPLATES[style]


def builtin_sections(*, cwd: Path, model: str, env: Mapping[str, str]) -> list[PromptSection]:
    chosen = [
        (names.BASE, "base"),
        (names.SANDBOX, sandbox_template(env)),
        (names.ACTIONS, "actions"),
    ]
    if find_git_root(cwd) is not None:
        chosen.append((names.GIT_REPOSITORY, "git_repository"))
    chosen.append((names.TOOL_EXAMPLES, examples_template(tool_call_style(model, env))))
    chosen.append((names.FINAL_REMINDER, "final_reminder"))
    return [
        # Every section after the first carries the blank line that separates it from the one before.
        PromptSection(name, (SECTION_GAP if i else "") + template(t), template_source(t))
        for i, (name, t) in enumerate(chosen)
    ]
