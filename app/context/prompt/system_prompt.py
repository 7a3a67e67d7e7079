"""Assembling the whole system prompt from its sections, in order.

Sections 1-6 are the built-in ones (or one file that replaces them all), then
the instruction files, the git snapshot, the memory index and appended instructions
(see appended.py for the order).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

from app.context.prompt import sections as names
from app.context.prompt.appended import appended_sections
from app.context.prompt.builtin import builtin_sections
from app.context.prompt.git_info import GitInfo
from app.context.prompt.sections import PromptSection, SystemPrompt
from app.context.prompt.system_md import read_system_md, system_md_path, write_system_md, write_target


def home_or_none() -> Path | None:
    """The home directory, or None where it cannot be determined (then ``~`` paths are ignored)."""
    try:
        return Path.home()
    except (RuntimeError, KeyError, OSError):
        return None


@dataclass
class PromptContext:
    """What build_system_prompt works from: the directories, the model, the texts assembled elsewhere, git."""

    cwd: Path
    project_root: Path
    model: str = ""
    user_memory: str = ""  # the instruction files' text, already assembled by the caller
    memory_index: str = ""  # the auto-memory section, after the git snapshot
    append: str = ""  # --append-system-prompt
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    home: Path | None = field(default_factory=home_or_none)
    git: GitInfo | None = None  # from read_git_info; None leaves out the git status section


def build_system_prompt(ctx: PromptContext) -> SystemPrompt:
    """The prompt as sections; raises SystemPromptError when a configured system.md is missing."""
    base = _base_sections(ctx)
    appended = appended_sections(user_memory=ctx.user_memory, append=ctx.append, git=ctx.git, memory_index=ctx.memory_index)
    prompt = SystemPrompt(sections=[*base, *appended], base_count=len(base))
    _write_out(prompt, ctx)
    return prompt


def _base_sections(ctx: PromptContext) -> list[PromptSection]:
    path = system_md_path(ctx.env, cwd=ctx.cwd, home=ctx.home)
    if path is None:
        return builtin_sections(cwd=ctx.cwd, model=ctx.model, env=ctx.env)
    return [PromptSection(names.CUSTOM, read_system_md(path), str(path))]


def _write_out(prompt: SystemPrompt, ctx: PromptContext) -> None:
    target = write_target(ctx.env, cwd=ctx.cwd, home=ctx.home)
    if target is None:
        return
    warning = write_system_md(target, prompt.base_text)
    if warning:
        prompt.warnings.append(warning)
    else:
        prompt.written_to = target
