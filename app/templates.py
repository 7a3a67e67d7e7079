"""Markdown templates shipped inside the packages: the model's prompts, the memory agents' and
selectors' instructions, skill drafts.

One loader for all of them. They are found through ``importlib.resources``, so an installed wheel
reads them as a checkout does, and read once per process (they do not change while it runs). A
root module importing nothing of the project, so ``app/core`` may use it as ``app/context`` does.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=None)
def package_template(package: str, name: str, folder: str = "templates") -> str:
    """The text of ``<package>/<folder>/<name>.md``, as written (callers strip when they need to).
    A missing template raises FileNotFoundError naming the file: a broken install, said plainly."""
    from importlib import resources  # lazily: most commands never read a template

    location = resources.files(package).joinpath(folder, f"{name}.md")
    try:
        return location.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"the template {folder}/{name}.md is missing from the {package} package (reinstall agentctx-tui)") from None
