"""The layers the house is built on, checked by walking every module's imports with ``ast``.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING`` (a
lazy import is still a dependency, and a type-only one still couples the layers).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
MAX_LINES = 600

# What app/core may not reach: everything that builds on it.
ABOVE_CORE = ("app.context", "app.tui", "app.mcp", "app.hooks", "app.cli", "app.runtime")

def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(APP.rglob("*.py"))}


def _resolve(node: ast.ImportFrom, name: str, importer: str) -> str:
    if not node.level:
        return node.module or ""
    package = importer.split(".")
    if not modules()[importer].name == "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


@cache
def imports_of(name: str) -> frozenset[str]:
    """Every module ``name`` imports anywhere in its text.

    ``from x import y`` counts ``x.y`` when that is a module, and ``x`` when ``y`` is defined there. The
    packages Python initialises on the way to a module are not counted: a package's ``__init__``
    re-exporting its own modules is not a cycle anyone can untangle.
    """
    tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, node.module or "", name)
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules().keys()
            found.update(submodules)
            if len(submodules) < len(node.names):  # something defined in ``base`` itself
                found.add(base)
    return frozenset(found)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _internal(name: str) -> str | None:
    """The app module an import names (a package's ``__init__`` for a package), or None outside app."""
    while name:
        if name in modules():
            return name
        name = name.rpartition(".")[0]
    return None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name in modules():
        targets = {_internal(target) for target in imports_of(name) if _within(target, "app")}
        edges[name] = {t for t in targets if t is not None and t != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_walk_sees_imports_in_functions_and_under_type_checking() -> None:
    # The walk itself: agent.py imports events at top level and the protocols under TYPE_CHECKING only;
    # runtime.py imports the MCP manager inside a function.
    assert "app.core.events" in imports_of("app.core.agent")
    assert "app.core.protocols" in imports_of("app.core.agent")
    assert any(_within(t, "app.mcp") for t in imports_of("app.runtime"))


def test_core_reaches_nothing_above_it() -> None:
    offenders = sorted(
        f"{name} imports {target}"
        for name in modules()
        if _within(name, "app.core")
        for target in imports_of(name)
        if any(_within(target, above) for above in ABOVE_CORE)
    )
    assert offenders == []


@pytest.mark.parametrize("package", ["app.core", "app.context"])
def test_core_and_context_never_import_textual(package: str) -> None:
    offenders = sorted(
        f"{name} imports {target}"
        for name in modules()
        if _within(name, package)
        for target in imports_of(name)
        if _within(target, "textual") or _within(target, "rich")
    )
    assert offenders == []


def test_the_tui_imports_nothing_from_the_cli() -> None:
    offenders = sorted(
        f"{name} imports {target}" for name in modules() if _within(name, "app.tui") for target in imports_of(name) if _within(target, "app.cli")
    )
    assert offenders == []


def _module_level_imports(name: str) -> set[str]:
    """What ``name`` imports outside any function (module level and under ``TYPE_CHECKING``)."""
    tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    inside_functions = {
        id(node)
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(fn)
    }
    for node in ast.walk(tree):
        if id(node) in inside_functions:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, node.module or "", name)
            found.update({base, *({f"{base}.{alias.name}" for alias in node.names} & modules().keys())})
    return found


def test_the_cli_reaches_the_tui_only_through_its_launcher_and_lazily() -> None:
    # The subcommands start without Textual; only the default command opens the TUI, inside the function that runs it.
    offenders = sorted(
        f"{name} imports {target}" for name in modules() if _within(name, "app.cli") for target in imports_of(name)
        if _within(target, "app.tui") and target != "app.tui.launch"
    )
    eager = sorted(
        f"{name} imports {target} at module level" for name in modules() if _within(name, "app.cli")
        for target in _module_level_imports(name) if _within(target, "app.tui")
    )
    assert offenders == [] and eager == []


def test_no_import_cycle_in_app() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_is_over_600_lines() -> None:
    long = sorted(
        f"{name}: {lines} lines"
        for name, path in modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    )
    assert long == []
