"""Markdown templates shipped inside the packages: the model's prompts, the memory agents' and
selectors' instructions, skill drafts.

One loader for all of them, reading each once per process (they do not change while it runs).
A package installed as files (a checkout, an editable install, a wheel) has its templates in its
folder, read directly; anything else (a zip import) goes through ``importlib.resources``, which
costs a headless turn about 5 ms of imports (its readers import zipfile) when only one template
is read. A root module importing nothing of the project, so ``app/core`` may use it as
``app/context`` does.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from pathlib import Path


@lru_cache(maxsize=None)
def package_template(package: str, name: str, folder: str = "templates") -> str:
    """The text of ``<package>/<folder>/<name>.md``, as written (callers strip when they need to).
    A missing template raises FileNotFoundError naming the file: a broken install, said plainly."""
    for base in getattr(import_module(package), "__path__", None) or ():
        candidate = Path(base, folder, f"{name}.md")
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    from importlib import resources

    location = resources.files(package).joinpath(folder, f"{name}.md")
    try:
        return location.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"the template {folder}/{name}.md is missing from the {package} package (reinstall agentctx-tui)") from None
