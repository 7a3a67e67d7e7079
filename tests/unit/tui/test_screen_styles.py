"""Each modal screen brings its own stylesheet (app/tui/screens/<name>.tcss beside it): none relies on a
global file that happens to be loaded, so a screen keeps its look when it is moved, subclassed or reused."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.screen import ModalScreen

import app.tui.screens as screens


def modal_screens() -> list[type[ModalScreen]]:  # type: ignore[type-arg]
    found = []
    for info in pkgutil.iter_modules(screens.__path__):
        module = importlib.import_module(f"{screens.__name__}.{info.name}")
        found += [c for _, c in inspect.getmembers(module, inspect.isclass) if issubclass(c, ModalScreen) and c.__module__ == module.__name__]
    return found


def test_every_modal_screen_names_a_stylesheet_that_exists_or_carries_its_own() -> None:
    classes = modal_screens()
    assert {"ApprovalScreen", "HelpScreen", "SessionPickerScreen", "MemoryScreen", "KeepDraftScreen"} <= {c.__name__ for c in classes}
    missing = []
    for cls in classes:
        paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH] if cls.CSS_PATH else []
        resolved = [Path(p) if Path(p).is_absolute() else Path(inspect.getfile(cls)).with_name(str(p)) for p in paths]
        if not (resolved and all(p.is_file() for p in resolved)) and not cls.DEFAULT_CSS.strip():
            missing.append(cls.__name__)
    assert missing == []

