"""list_directory and glob."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext, ToolError
from app.core.tools.glob_tool import MAX_RESULTS, MAX_TIMED, RECENT_SECONDS, GlobTool
from app.core.tools.ripgrep import Ripgrep
from app.core.tools.list_directory import ListDirectoryTool, human_size

listing = ListDirectoryTool()
glob = GlobTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


def _touch(root: Path, rel: str, content: str = "x", mtime: float | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


async def test_list_directory_puts_directories_first_with_sizes(ctx: ToolContext) -> None:
    _touch(ctx.root, "zeta.txt", "12345")
    _touch(ctx.root, "Alpha.md", "")
    _touch(ctx.root, "src/x.py")
    _touch(ctx.root, ".hidden/y")
    result = await listing.run({"path": "."}, ctx)
    assert result.output.splitlines() == [".hidden/", "src/", "Alpha.md  0 B", "zeta.txt  5 B"]
    assert result.summary == "4 entries"


async def test_list_directory_of_a_subdirectory_and_empty_dir(ctx: ToolContext) -> None:
    _touch(ctx.root, "src/b.py")
    _touch(ctx.root, "src/a.py")
    (ctx.root / "empty").mkdir()
    assert (await listing.run({"path": "src"}, ctx)).output.splitlines() == ["a.py  1 B", "b.py  1 B"]
    assert (await listing.run({"path": "empty"}, ctx)).output == "(empty is empty)"


async def test_list_directory_errors(ctx: ToolContext) -> None:
    _touch(ctx.root, "file.txt")
    with pytest.raises(ToolError, match="file.txt is not a directory"):
        await listing.run({"path": "file.txt"}, ctx)
    with pytest.raises(ToolError, match="missing does not exist"):
        await listing.run({"path": "missing"}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await listing.run({"path": ".."}, ctx)


def test_human_size() -> None:
    assert human_size(0) == "0 B"
    assert human_size(1023) == "1023 B"
    assert human_size(1536) == "1.5 KB"
    assert human_size(5 * 1024 * 1024) == "5.0 MB"


async def test_glob_double_star_recurses_and_single_star_does_not(ctx: ToolContext) -> None:
    now = time.time()  # all changed within the last hour: newest first
    _touch(ctx.root, "top.py", mtime=now - 400)
    _touch(ctx.root, "src/a.py", mtime=now - 300)
    _touch(ctx.root, "src/deep/b.py", mtime=now - 200)
    _touch(ctx.root, "src/readme.md", mtime=now - 100)
    recursive = await glob.run({"pattern": "**/*.py"}, ctx)
    assert recursive.output.splitlines() == ["src/deep/b.py", "src/a.py", "top.py"]  # newest first
    assert recursive.summary == "3 files"
    top_only = await glob.run({"pattern": "*.py"}, ctx)
    assert top_only.output.splitlines() == ["top.py"]


async def test_glob_path_argument_and_paths_relative_to_root(ctx: ToolContext) -> None:
    _touch(ctx.root, "src/a.py")
    _touch(ctx.root, "other/b.py")
    result = await glob.run({"pattern": "*.py", "path": "src"}, ctx)
    assert result.output == "src/a.py"


async def test_glob_finds_dot_files_but_not_skipped_directories(ctx: ToolContext) -> None:
    _touch(ctx.root, ".env")
    _touch(ctx.root, ".github/workflows/ci.yml")
    _touch(ctx.root, ".git/config")
    _touch(ctx.root, "node_modules/pkg/index.js")
    assert (await glob.run({"pattern": ".env"}, ctx)).output == ".env"
    assert (await glob.run({"pattern": "**/*.yml"}, ctx)).output == ".github/workflows/ci.yml"
    everything = (await glob.run({"pattern": "**"}, ctx)).output.splitlines()
    assert sorted(everything) == [".env", ".github/workflows/ci.yml"]


@pytest.mark.parametrize("walk", ["ripgrep", "python"])
async def test_glob_lists_the_last_day_s_changes_first_then_the_rest_by_path(ctx: ToolContext, walk: str) -> None:
    # Qwen Code's order: changed within 24 hours, newest first; everything older alphabetically
    # (not by age: last month's and last year's files are equally "old").
    now = time.time()
    _touch(ctx.root, "zeta.py", mtime=now - 60)
    _touch(ctx.root, "src/mid.py", mtime=now - 3_600)
    _touch(ctx.root, "alpha.py", mtime=now - RECENT_SECONDS - 60)  # a day and a minute ago
    _touch(ctx.root, "src/old.py", mtime=now - 400 * 86_400)
    _touch(ctx.root, "beta.py", mtime=now - 30 * 86_400)
    if walk == "python":  # no runnable rg: the same order from the Python walk
        broken = ctx.root.parent / "not-rg"
        broken.write_text("not a program\n")
        tool = GlobTool(Ripgrep(broken))
    else:
        tool = glob
    result = await tool.run({"pattern": "**/*.py"}, ctx)
    assert result.output.splitlines() == ["zeta.py", "src/mid.py", "alpha.py", "beta.py", "src/old.py"]


async def test_a_glob_wider_than_the_timed_limit_is_listed_by_path_and_says_so(ctx: ToolContext) -> None:
    # No stat per match beyond MAX_TIMED matches (that was most of a wide glob's time): the
    # newest file is then not first, and the output tells the model why.
    for n in range(MAX_TIMED + 1):
        _touch(ctx.root, f"wide/f{n:05d}.txt")
    _touch(ctx.root, f"wide/f{MAX_TIMED + 1:05d}.txt", mtime=time.time() + 3_600)  # the newest, by far
    result = await glob.run({"pattern": "wide/*.txt"}, ctx)
    lines = result.output.splitlines()
    assert lines[0] == "wide/f00000.txt"
    assert lines[MAX_RESULTS - 1] == f"wide/f{MAX_RESULTS - 1:05d}.txt"
    assert lines[-2].startswith(f"… {MAX_TIMED + 2 - MAX_RESULTS:,} more files not shown".replace(",", ""))
    assert lines[-1] == f"(more than {MAX_TIMED:,} files match: listed by path, without the recently changed ones first)"
    assert result.summary == f"{MAX_TIMED + 2} files"
    # Within the limit the order is by time again.
    narrow = await glob.run({"pattern": "wide/f0200*.txt"}, ctx)
    assert narrow.output.splitlines()[0] == f"wide/f{MAX_TIMED + 1:05d}.txt"


async def test_glob_ties_in_mtime_sort_by_path(ctx: ToolContext) -> None:
    for name in ("b.txt", "a.txt", "c.txt"):
        _touch(ctx.root, name, mtime=5_000)
    assert (await glob.run({"pattern": "*.txt"}, ctx)).output.splitlines() == ["a.txt", "b.txt", "c.txt"]


async def test_glob_no_match_and_absolute_pattern(ctx: ToolContext) -> None:
    _touch(ctx.root, "src/a.py")
    empty = await glob.run({"pattern": "**/*.rs"}, ctx)
    assert empty.output == "No files match **/*.rs in ."
    assert empty.summary == "0 files"
    absolute = await glob.run({"pattern": f"{ctx.root}/src/*.py"}, ctx)
    assert absolute.output == "src/a.py"
    with pytest.raises(ToolError, match="absolute and not inside"):
        await glob.run({"pattern": "/etc/*.conf"}, ctx)


async def test_glob_caps_results_with_a_note(ctx: ToolContext) -> None:
    for n in range(MAX_RESULTS + 7):
        _touch(ctx.root, f"many/f{n:04d}.txt")
    result = await glob.run({"pattern": "many/*.txt"}, ctx)
    lines = result.output.splitlines()
    assert len(lines) == MAX_RESULTS + 1
    assert lines[-1].startswith("… 7 more files not shown")
    assert result.summary == f"{MAX_RESULTS + 7} files"


async def test_glob_skips_symlinked_files_that_point_outside(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _touch(tmp_path, "outside/secret.py")
    _touch(root, "inside.py")
    (root / "leak.py").symlink_to(tmp_path / "outside/secret.py")
    result = await glob.run({"pattern": "*.py"}, ToolContext(root=root))
    assert result.output == "inside.py"


async def test_glob_path_must_be_a_directory(ctx: ToolContext) -> None:
    _touch(ctx.root, "f.txt")
    with pytest.raises(ToolError, match="not a directory"):
        await glob.run({"pattern": "*", "path": "f.txt"}, ctx)


def test_summaries_and_subjects() -> None:
    assert listing.summarize({"path": "src"}) == "list_directory src"
    assert glob.summarize({"pattern": "**/*.py"}) == "glob **/*.py"
    assert glob.summarize({"pattern": "*.py", "path": "src"}) == "glob *.py in src"
    assert glob.subject({"pattern": "*.py"}) == "."
    assert listing.subject({"path": "src/"}) == "src"
