"""Prompt templates shipped in the package (found through importlib.resources)."""

from __future__ import annotations

from functools import lru_cache

from app.templates import package_template


@lru_cache(maxsize=None)
def template(name: str) -> str:
    """A prompt template from ``app/context/prompt/templates`` (found via importlib.resources)."""
    return package_template("app.context.prompt", name).strip()


def template_source(name: str) -> str:
    """How a template is named in reports: its path inside the package."""
    return f"templates/{name}.md"
