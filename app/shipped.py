"""Folders shipped with the program but kept outside its code: ``styles/`` and ``bundled_skills/``.

They sit at the top of the repository (the design card's layout). The wheel carries them inside the package
(``app/styles``, ``app/bundled_skills``: hatch ``force-include`` in pyproject.toml), so an installed program
finds them in the package; a checkout (and an editable install, which runs the checkout) beside it.
"""

from __future__ import annotations

from pathlib import Path

STYLES = "styles"
BUNDLED_SKILLS = "bundled_skills"
_PACKAGE = Path(__file__).resolve().parent


def shipped_dir(name: str) -> Path | None:
    """``app/<name>`` in an installed wheel, else ``<checkout>/<name>``; None when neither exists."""
    inside = _PACKAGE / name
    if inside.is_dir():
        return inside
    beside = _PACKAGE.parent / name
    # Only a checkout's: next to an installed package is site-packages, where another project's folder may be.
    if beside.is_dir() and (_PACKAGE.parent / "pyproject.toml").is_file():
        return beside
    return None


def shipped_file(folder: str, name: str) -> Path:
    """A file in a shipped folder; a clear error naming both places when the installation lacks it."""
    found = shipped_dir(folder)
    if found is None or not (found / name).is_file():
        raise FileNotFoundError(
            f"{folder}/{name} is not in {_PACKAGE / folder} nor in {_PACKAGE.parent / folder}: the installation is incomplete; reinstall agentctx-tui"
        )
    return found / name
