"""The TUI's house rules, read from the source with ``ast``: no import cycle among app.tui modules
(imports inside functions and under TYPE_CHECKING count: each is a dependency a reader must follow),
no controller that guesses at its host (``type: ignore[attr-defined]``), and no module over 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "app.tui"
MAX_LINES = 600


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name."""
    base = root.joinpath(*package.split("."))
    found: dict[str, Path] = {}
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imported_modules(path: Path, name: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports anywhere in its text (any depth, any branch)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against this module's package
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                base = node.module or ""
            # ``from app.tui import prompt_store`` imports the module app.tui.prompt_store
            candidates = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for candidate in candidates:
            # ``import app.tui.widgets.status`` also runs app.tui.widgets: the nearest known module counts
            while candidate and candidate not in known:
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                targets.add(candidate)
    return targets


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    files = module_files(root, package)
    known = set(files)
    # A package's own __init__ runs before its modules; an empty one adds no edge worth following.
    return {name: imported_modules(path, name, known) - {package} for name, path in files.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


# -- the rules, on this repository ----------------------------------------------------------------


def test_no_import_cycle_among_tui_modules() -> None:
    graph = import_graph(ROOT, PACKAGE)
    assert "app.tui.app" in graph and "app.tui.controllers.turn" in graph, "the walk found the TUI"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_controller_imports_the_app() -> None:
    graph = import_graph(ROOT, PACKAGE)
    importers = sorted(name for name, targets in graph.items() if "app.tui.app" in targets)
    # app/tui/launch.py opens the app from the command line; nothing else in the TUI may import it.
    assert importers == ["app.tui.launch"], "the app composes the controllers; they reach it only through app/tui/host.py"


def test_no_attr_defined_ignores_in_the_tui() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in module_files(ROOT, PACKAGE).values()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "type: ignore[attr-defined" in line.replace(" ", "").replace("type:ignore", "type: ignore")
    ]
    assert offenders == []


def test_no_tui_module_is_over_600_lines() -> None:
    sizes = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in module_files(ROOT, PACKAGE).values()}
    assert {name: size for name, size in sizes.items() if size > MAX_LINES} == {}


# -- the checker itself: it must see the cycles it is there to forbid --------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for relative, text in {"app/__init__.py": "", "app/tui/__init__.py": "", **files}.items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "second",
    [
        "from app.tui.first import thing\n",
        "def later():\n    from app.tui.first import thing\n    return thing\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.tui.first import Thing\n",
        "from app.tui import first\n",
        "import app.tui.first\n",
        "from .first import thing\n",
    ],
    ids=["top-level", "inside-a-function", "type-checking", "from-package", "import-dotted", "relative"],
)
def test_the_checker_finds_a_cycle_however_the_import_is_written(tmp_path: Path, second: str) -> None:
    root = _package(tmp_path, {"app/tui/first.py": "from app.tui.second import other\nthing = 1\n", "app/tui/second.py": second})
    cycle = find_cycle(import_graph(root, PACKAGE))
    assert cycle is not None and set(cycle) == {"app.tui.first", "app.tui.second"}


def test_the_checker_finds_a_longer_cycle_through_a_subpackage(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "app/tui/controllers/__init__.py": "",
            "app/tui/app.py": "from app.tui.controllers.turn import TurnController\n",
            "app/tui/controllers/turn.py": "from app.tui.turn_view import TurnView\n",
            "app/tui/turn_view.py": "def f():\n    from app.tui.app import App\n",
        },
    )
    assert find_cycle(import_graph(root, PACKAGE)) == ["app.tui.app", "app.tui.controllers.turn", "app.tui.turn_view", "app.tui.app"]


def test_the_checker_passes_a_tree_without_cycles(tmp_path: Path) -> None:
    root = _package(tmp_path, {"app/tui/host.py": "import textual\n", "app/tui/first.py": "from app.tui.host import Host\n"})
    assert find_cycle(import_graph(root, PACKAGE)) is None


def test_the_app_offers_everything_the_host_protocol_promises() -> None:
    """Controllers are typed against TuiHost; the app must have each of its members (or the first call fails)."""
    host = ast.parse((ROOT / "app/tui/host.py").read_text(encoding="utf-8"))
    [protocol] = [node for node in host.body if isinstance(node, ast.ClassDef) and node.name == "TuiHost"]
    promised = {n.name for n in protocol.body if isinstance(n, ast.FunctionDef)}
    attributes = {n.target.id for n in protocol.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    from app.tui.app import AgentctxApp

    assert promised and attributes == {"runtime", "settings", "paths"}
    assert sorted(name for name in promised if not hasattr(AgentctxApp, name)) == []
    app_source = ast.parse((ROOT / "app/tui/app.py").read_text(encoding="utf-8"))
    assigned = {
        target.attr
        for node in ast.walk(app_source)
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }
    assert attributes <= assigned


def test_controllers_use_only_what_the_host_protocol_declares() -> None:
    """``host.<name>`` in a controller that TuiHost does not declare would be the old mixins' guess again."""
    host = ast.parse((ROOT / "app/tui/host.py").read_text(encoding="utf-8"))
    [protocol] = [node for node in host.body if isinstance(node, ast.ClassDef) and node.name == "TuiHost"]
    declared = {n.name for n in protocol.body if isinstance(n, ast.FunctionDef)}
    declared |= {n.target.id for n in protocol.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    used: dict[str, set[str]] = {}
    files = [p for name, p in module_files(ROOT, PACKAGE).items() if name.startswith("app.tui.controllers.") or name in ("app.tui.turn_view", "app.tui.guards")]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute):
                continue
            owner = node.value
            # host.x, self.host.x
            if (isinstance(owner, ast.Name) and owner.id == "host") or (isinstance(owner, ast.Attribute) and owner.attr == "host"):
                used.setdefault(node.attr, set()).add(path.name)
    assert len(files) >= 12 and {"notify", "runtime", "post_message"} <= set(used)
    assert {name: sorted(where) for name, where in used.items() if name not in declared} == {}
