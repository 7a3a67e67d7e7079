"""The base system prompt (a Markdown template shipped in the package) and the environment section."""

from __future__ import annotations

import platform
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path


@lru_cache(maxsize=None)
def template(name: str) -> str:
    """A prompt template from ``app/context/prompt/templates`` (found via importlib.resources)."""
    return resources.files("app.context.prompt").joinpath("templates", f"{name}.md").read_text(encoding="utf-8").strip()


def base_prompt() -> str:
    return template("base")


def environment_section(cwd: Path, *, today: date | None = None) -> str:
    """Facts the model cannot know on its own: where it runs and when."""
    today = today or date.today()
    return (
        "# Environment\n\n"
        f"- Working directory: {cwd}\n"
        f"- Platform: {platform.system()} {platform.release()}\n"
        f"- Today's date: {today.isoformat()}"
    )
