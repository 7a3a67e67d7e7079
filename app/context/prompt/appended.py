"""What follows the base prompt: instruction files, the git snapshot, the memory index, appended instructions.

The git snapshot follows the instruction blocks directly (no ``---``), before the
``---`` that opens the memory index: where Qwen Code 0.24.4 puts it.
"""

from __future__ import annotations

from app.context.prompt import sections as names
from app.context.prompt.git_info import GitInfo, has_snapshot
from app.context.prompt.sections import PromptSection
from app.context.prompt.suffix import suffix

USER_MEMORY_SOURCE = "user memory"
MEMORY_INDEX_SOURCE = "memory index"
APPEND_SOURCE = "--append-system-prompt"
GIT_JOIN = "\n\n"


def appended_sections(*, user_memory: str, append: str, git: GitInfo | None, memory_index: str = "") -> list[PromptSection]:
    """Sections whose text is blank are left out entirely, separator included."""
    sections = [PromptSection(names.USER_MEMORY, suffix(user_memory), USER_MEMORY_SOURCE)]
    if git is not None and has_snapshot(git):
        text = git_status_text(git)
        joined = f"{GIT_JOIN}{text}" if sections[0].text else suffix(text)
        sections.append(PromptSection(names.GIT_STATUS, joined, f"git ({git.root})"))
    sections.append(PromptSection(names.MEMORY_INDEX, suffix(memory_index), MEMORY_INDEX_SOURCE))
    sections.append(PromptSection(names.APPENDED, suffix(append), APPEND_SOURCE))
    return [s for s in sections if s.text]


def git_status_text(info: GitInfo) -> str:
    # Imported here: the snapshot's fence and secret scanner load only in a repository.
    from app.context.prompt.git_snapshot import git_snapshot

    return git_snapshot(info).text
