"""The system prompt as named sections, so every character can be traced to where it came from."""

from __future__ import annotations

from dataclasses import field
from app.dataclass import dataclass
from pathlib import Path

# Section names, shared with whoever reports on the prompt.
BASE = "base prompt"
SANDBOX = "sandbox"
ACTIONS = "actions with care"
GIT_REPOSITORY = "git repository"
TOOL_EXAMPLES = "tool-call examples"
FINAL_REMINDER = "final reminder"
CUSTOM = "custom system prompt"
USER_MEMORY = "user memory"
MEMORY_INDEX = "memory index"
APPENDED = "appended instructions"
GIT_STATUS = "git status"


@dataclass(frozen=True)
class PromptSection:
    """One piece of the prompt. ``text`` includes its leading separator, so joining sections gives the prompt."""

    name: str
    text: str
    source: str  # a template such as ``templates/sandbox_none.md``, a file path, or where the caller's text came from


@dataclass
class SystemPrompt:
    """The whole system prompt as its sections in order; ``text`` joins them."""

    sections: list[PromptSection]
    # How many leading sections make up the base (built-in sections 1-6, or the system.md file that replaces them).
    base_count: int
    written_to: Path | None = None  # where AGENTCTX_WRITE_SYSTEM_MD wrote the base text, if it did
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.sections)

    @property
    def base_text(self) -> str:
        """The prompt before the suffixes: what the write-out writes."""
        return "".join(s.text for s in self.sections[: self.base_count])

    def names(self) -> list[str]:
        return [s.name for s in self.sections]
