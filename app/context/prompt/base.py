"""Prompt templates shipped in the package (found through importlib.resources)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def template(name: str) -> str:
    """A prompt template from ``app/context/prompt/templates`` (found via importlib.resources)."""
    return resources.files("app.context.prompt").joinpath("templates", f"{name}.md").read_text(encoding="utf-8").strip()


def template_source(name: str) -> str:
    """How a template is named in reports: its path inside the package."""
    return f"templates/{name}.md"
