"""What follows the base prompt: user memory, appended instructions, then git status."""

from __future__ import annotations

from string import Template

from app.context.prompt import sections as names
from app.context.prompt.base import template
from app.context.prompt.git_info import GitInfo
from app.context.prompt.sections import PromptSection
from app.context.prompt.suffix import suffix

USER_MEMORY_SOURCE = "user memory"
APPEND_SOURCE = "--append-system-prompt"


def appended_sections(*, user_memory: str, append: str, git: GitInfo | None) -> list[PromptSection]:
    """Sections whose text is blank are left out entirely, separator included."""
    candidates = [
        (names.USER_MEMORY, user_memory, USER_MEMORY_SOURCE),
        (names.APPENDED, append, APPEND_SOURCE),
    ]
    if git is not None:
        candidates.append((names.GIT_STATUS, git_status_text(git), f"git ({git.root})"))
    sections = [PromptSection(name, suffix(text), source) for name, text, source in candidates]
    return [s for s in sections if s.text]


def git_status_text(info: GitInfo) -> str:
    commits = "\n".join(f"- {line}" for line in info.commits) or "(no commits yet)"
    return Template(template("git_status")).substitute(branch=_branch_label(info), commits=commits)


def _branch_label(info: GitInfo) -> str:
    if info.branch:
        return info.branch
    if info.detached:
        return f"(detached HEAD at {info.head})"
    return "(unknown)"
