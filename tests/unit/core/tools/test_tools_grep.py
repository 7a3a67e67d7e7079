"""grep_search, with ripgrep and with the Python walk it falls back to (each test runs both)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext, ToolError
from app.core.tools.grep_search import MAX_MATCHES, GrepSearchTool
from app.core.tools.ripgrep import Ripgrep


@pytest.fixture(params=["ripgrep", "python"])
def grep(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> GrepSearchTool:
    if request.param == "ripgrep":
        return GrepSearchTool()
    # A "binary" that cannot be executed: the tool must notice and walk in Python instead.
    broken = tmp_path_factory.mktemp("bin") / "rg"
    broken.write_text("not a program\n")
    return GrepSearchTool(Ripgrep(broken))


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


def _put(root: Path, rel: str, data: str | bytes, *, mtime: float | None = None) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


async def test_matches_are_path_line_text(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "src/a.py", "import os\ndef main():\n    os.exit()\n")
    _put(ctx.root, "b.txt", "nothing here\n")
    result = await grep.run({"pattern": r"os\."}, ctx)
    assert result.output == "src/a.py:3:     os.exit()"
    assert result.summary == "1 match in 1 file"


async def test_invalid_regex_names_pattern_and_error(grep: GrepSearchTool, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as info:
        await grep.run({"pattern": "foo(bar"}, ctx)
    message = str(info.value)
    assert message.startswith("invalid regex 'foo(bar': ")
    assert "missing )" in message


async def test_include_filters_file_names(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "a.py", "needle\n", mtime=2_000)
    _put(ctx.root, "deep/b.py", "needle\n", mtime=1_000)
    _put(ctx.root, "c.md", "needle\n", mtime=3_000)
    result = await grep.run({"pattern": "needle", "include": "*.py"}, ctx)
    assert result.output.splitlines() == ["a.py:1: needle", "deep/b.py:1: needle"]
    with_dir = await grep.run({"pattern": "needle", "include": "deep/*.py"}, ctx)
    assert with_dir.output == "deep/b.py:1: needle"


async def test_binary_files_are_skipped_and_non_utf8_text_is_searched(grep: GrepSearchTool, ctx: ToolContext) -> None:
    # As ripgrep does: a file with NUL bytes is not text; a Latin-1 file is, with its odd bytes replaced.
    _put(ctx.root, "blob.bin", b"needle\x00\x01", mtime=3_000)
    _put(ctx.root, "latin.txt", "needle café\n".encode("latin-1"), mtime=2_000)
    _put(ctx.root, "ok.txt", "needle\n", mtime=1_000)
    result = await grep.run({"pattern": "needle"}, ctx)
    assert result.output.splitlines() == ["latin.txt:1: needle caf\ufffd", "ok.txt:1: needle"]
    assert not result.is_error


async def test_path_may_be_a_single_file(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "a.txt", "x\nneedle\n")
    _put(ctx.root, "b.txt", "needle\n")
    result = await grep.run({"pattern": "needle", "path": "a.txt"}, ctx)
    assert result.output == "a.txt:2: needle"


async def test_no_matches(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "a.txt", "hay\n")
    result = await grep.run({"pattern": "needle"}, ctx)
    assert result.output == "No matches for 'needle' in ."
    assert result.summary == "0 matches"


async def test_matches_are_capped_with_a_note(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "many.txt", "hit\n" * (MAX_MATCHES + 50))
    result = await grep.run({"pattern": "hit"}, ctx)
    lines = result.output.splitlines()
    assert len(lines) == MAX_MATCHES + 1
    assert lines[-1].startswith(f"… stopped after {MAX_MATCHES} matches")


async def test_skipped_directories_are_not_searched(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, ".git/HEAD", "needle\n")
    _put(ctx.root, "node_modules/x.js", "needle\n")
    _put(ctx.root, "real.js", "needle\n")
    assert (await grep.run({"pattern": "needle"}, ctx)).output == "real.js:1: needle"


async def test_missing_path(grep: GrepSearchTool, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="nowhere does not exist"):
        await grep.run({"pattern": "x", "path": "nowhere"}, ctx)


async def test_newest_file_first_then_lines_in_order(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "old.py", "needle 1\nx\nneedle 3\n", mtime=1_000)
    _put(ctx.root, "new.py", "needle a\nneedle b\n", mtime=9_000)
    _put(ctx.root, "mid/m.py", "needle m\n", mtime=5_000)
    result = await grep.run({"pattern": "needle"}, ctx)
    assert result.output.splitlines() == [
        "new.py:1: needle a",
        "new.py:2: needle b",
        "mid/m.py:1: needle m",
        "old.py:1: needle 1",
        "old.py:3: needle 3",
    ]
    assert result.summary == "5 matches in 3 files"


async def test_look_around_and_case_flag_work(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "a.py", "def fetch_user():\ndef fetch_all():\nFETCH_LIMIT = 3\n")
    result = await grep.run({"pattern": r"fetch_(?!all)\w+"}, ctx)
    assert result.output == "a.py:1: def fetch_user():"
    folded = await grep.run({"pattern": "(?i)fetch_limit"}, ctx)
    assert folded.output == "a.py:3: FETCH_LIMIT = 3"


async def test_windows_line_endings_are_not_shown(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "a.txt", b"one\r\nneedle end\r\n")
    result = await grep.run({"pattern": "end$"}, ctx)
    assert result.output == "a.txt:2: needle end"


def test_summary() -> None:
    grep = GrepSearchTool()
    assert grep.summarize({"pattern": "TODO", "path": "app", "include": "*.py"}) == "grep_search 'TODO' in app (*.py)"


async def test_a_file_named_outright_is_searched_whatever_the_include(grep: GrepSearchTool, ctx: ToolContext) -> None:
    _put(ctx.root, "notes.md", "needle\n")
    result = await grep.run({"pattern": "needle", "path": "notes.md", "include": "*.py"}, ctx)
    assert result.output == "notes.md:1: needle"
