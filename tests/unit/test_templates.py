"""One loader for the Markdown templates every package ships."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.templates import package_template

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("package", "folder"),
    [("app.context.prompt", "templates"), ("app.context.memory", "templates"), ("app.context.compaction", "templates"), ("app.context.skills", "templates"), ("app.core", "prompts")],
)
def test_every_shipped_template_loads_as_written(package: str, folder: str) -> None:
    directory = ROOT.joinpath(*package.split("."), folder)
    names = sorted(p.stem for p in directory.glob("*.md"))
    assert names, directory
    for name in names:
        assert package_template(package, name, folder) == (directory / f"{name}.md").read_text(encoding="utf-8")


def test_a_missing_template_names_the_file_and_what_to_do() -> None:
    with pytest.raises(FileNotFoundError, match=r"templates/nope\.md is missing from the app\.context\.memory package \(reinstall"):
        package_template("app.context.memory", "nope")


def test_the_loader_imports_nothing_of_the_project_so_core_may_use_it() -> None:
    tree = ast.parse((ROOT / "app" / "templates.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(name and name.startswith("app") for name in imported)


def test_no_module_reads_a_template_on_its_own() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "app").rglob("*.py")
        if path.name != "templates.py" and '.joinpath("templates"' in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
