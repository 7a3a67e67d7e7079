"""The project folder a test runs the agent in: the one ``workspace`` fixture (tests/conftest.py) builds it.

A test module (or a folder's conftest.py) says what its workspace holds with ``WORKSPACE = Workspace(...)``;
without one it is an empty folder named ``ws``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType


@dataclass(frozen=True)
class Workspace:
    name: str = "ws"
    git: bool = False  # an empty .git/ makes the folder a project root, as a clone is
    files: dict[str, str] = field(default_factory=dict)  # relative path -> text

    def create(self, parent: Path) -> Path:
        root = parent / self.name
        root.mkdir(parents=True)
        if self.git:
            (root / ".git").mkdir()
        for relative, text in self.files.items():
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return root


def workspace_for(module: ModuleType) -> Workspace:
    """The module's ``WORKSPACE``, else its folder's conftest's, else an empty ``ws``."""
    for candidate in (module, sys.modules.get(f"{module.__package__}.conftest")):
        spec = getattr(candidate, "WORKSPACE", None)
        if isinstance(spec, Workspace):
            return spec
    return Workspace()
