"""Repositories in the shapes where the git section used to differ from Qwen Code 0.24.4's.

Built the same way by the conformance test and by ``scripts/capture_qwen_git.py`` (which ran Qwen Code on
them and saved what it sent in ``data/qwen_git_sections.json``): fixed identity and dates, so the commit
hashes in the captured bytes come out the same on every machine.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

# Identity, dates and no user or system configuration: the hashes depend on all of them.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "a",
    "GIT_AUTHOR_EMAIL": "a@b",
    "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@b",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def _repo(base: Path, name: str) -> Path:
    repo = base / name
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "master")
    return repo


def _commit(repo: Path, message: str = "first") -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def _write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)


def dirty(base: Path) -> Path:
    """Changes in the root and a subdirectory, staged, deleted and untracked: porcelain's leading spaces."""
    repo = _repo(base, "dirty")
    _write(repo, {"a.py": "a\n", "sub/m2.txt": "x\n", "gone.txt": "g\n", "st.txt": "s\n"})
    _commit(repo)
    _write(repo, {"a.py": "b\n", "sub/m2.txt": "y\n", "st.txt": "t\n", "new.txt": "n\n"})
    (repo / "gone.txt").unlink()
    _git(repo, "add", "st.txt")
    return repo


def subdir(base: Path) -> Path:
    """Run two levels down: paths relative to the working directory (``../../memory-tests/x.json``)."""
    repo = _repo(base, "subdir")
    _write(repo, {"memory-tests/x.json": "{}\n", "pkg/inner/f.txt": "f\n"})
    _commit(repo)
    _write(repo, {"memory-tests/x.json": "{1}\n", "pkg/inner/f.txt": "g\n", "pkg/inner/new.txt": "n\n"})
    return repo / "pkg" / "inner"


def long_aligned(base: Path) -> Path:
    """A status of 2,400 characters whose cut falls right after a newline."""
    repo = _repo(base, "long")
    _write(repo, {"seed.txt": "s\n"})
    _commit(repo)
    _write(repo, {f"untracked_file_with_a_long_name_number_{n:03d}.txt": "u\n" for n in range(48)})
    return repo


def long_mid_line(base: Path) -> Path:
    """A status cut in the middle of a line, with a modified file first (its leading space trimmed)."""
    repo = _repo(base, "long-mid")
    _write(repo, {"a.txt": "1\n"})
    _commit(repo)
    _write(repo, {"a.txt": "2\n", **{f"dir/n{n}_{'x' * (n % 7)}.txt": "u\n" for n in range(150)}})
    _git(repo, "config", "status.showUntrackedFiles", "all")
    return repo


def detached(base: Path) -> Path:
    repo = _repo(base, "detached")
    _write(repo, {"a.txt": "1\n"})
    _commit(repo, "one")
    _write(repo, {"a.txt": "2\n"})
    _commit(repo, "two")
    _git(repo, "checkout", "-q", "HEAD~1")
    return repo


def no_commits(base: Path) -> Path:
    """Before the first commit ``git log`` fails: Qwen Code sends no git section at all."""
    repo = _repo(base, "no-commits")
    _write(repo, {"a.txt": "1\n"})
    return repo


def clean(base: Path) -> Path:
    repo = _repo(base, "clean")
    _write(repo, {"a.txt": "1\n"})
    _commit(repo)
    return repo


def ahead_with_quoted_names(base: Path) -> Path:
    """A branch ahead of its upstream (``## master...up [ahead 1]``), names git quotes, seven commits (five kept)."""
    repo = _repo(base, "ahead")
    _write(repo, {"a.txt": "1\n"})
    _commit(repo)
    _git(repo, "branch", "-q", "up")
    _git(repo, "branch", "-q", "--set-upstream-to=up")
    for n in range(2, 8):
        _write(repo, {"a.txt": f"{n}\n"})
        _commit(repo, f"change {n}")
    _write(repo, {"sp ace.txt": "x\n", "caf\u00e9.txt": "x\n"})
    return repo


CASES: dict[str, Callable[[Path], Path]] = {
    case.__name__: case
    for case in (dirty, subdir, long_aligned, long_mid_line, detached, no_commits, clean, ahead_with_quoted_names)
}


def repeated_import(base: Path) -> Path:
    """The same ``@import`` twice in one file, and again inside an imported file: expanded at each."""
    repo = _repo(base, "repeated-import")
    _write(repo, {
        "QWEN.md": "# Rules\nSee @docs/ARCH.md for the layout.\n\nTests (see @docs/ARCH.md §2) and @docs/TESTS.md for more.\n",
        "docs/ARCH.md": "Layers read top-down.\n",
        "docs/TESTS.md": "Run make test. Layout: @ARCH.md\n",
    })
    _commit(repo)
    return repo


def import_cycle(base: Path) -> Path:
    """A imports B imports A (and itself): a cycle along the chain is cut, a sibling repeat is not."""
    repo = _repo(base, "import-cycle")
    _write(repo, {
        "AGENTS.md": "Top: @a.md then @b.md\n",
        "a.md": "A says @b.md and @a.md\n",
        "b.md": "B says @a.md\n",
    })
    _commit(repo)
    return repo


def deep_imports(base: Path) -> Path:
    """A chain six deep: the depth limit (5) leaves the last import as written."""
    repo = _repo(base, "deep-imports")
    files = {"QWEN.md": "Level 0 @l1.md\n"}
    files |= {f"l{n}.md": f"Level {n} @l{n + 1}.md\n" for n in range(1, 7)}
    _write(repo, files)
    _commit(repo)
    return repo


IMPORT_CASES: dict[str, Callable[[Path], Path]] = {
    case.__name__: case for case in (repeated_import, import_cycle, deep_imports)
}
