"""grep_search."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.tools.base import ToolContext, ToolError
from app.core.tools.grep_search import MAX_MATCHES, GrepSearchTool

grep = GrepSearchTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


def _put(root: Path, rel: str, data: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)


async def test_matches_are_path_line_text(ctx: ToolContext) -> None:
    _put(ctx.root, "src/a.py", "import os\ndef main():\n    os.exit()\n")
    _put(ctx.root, "b.txt", "nothing here\n")
    result = await grep.run({"pattern": r"os\."}, ctx)
    assert result.output == "src/a.py:3:     os.exit()"
    assert result.summary == "1 match in 1 file"


async def test_invalid_regex_names_pattern_and_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as info:
        await grep.run({"pattern": "foo(bar"}, ctx)
    message = str(info.value)
    assert message.startswith("invalid regex 'foo(bar': ")
    assert "missing )" in message


async def test_include_filters_file_names(ctx: ToolContext) -> None:
    _put(ctx.root, "a.py", "needle\n")
    _put(ctx.root, "deep/b.py", "needle\n")
    _put(ctx.root, "c.md", "needle\n")
    result = await grep.run({"pattern": "needle", "include": "*.py"}, ctx)
    assert result.output.splitlines() == ["a.py:1: needle", "deep/b.py:1: needle"]
    with_dir = await grep.run({"pattern": "needle", "include": "deep/*.py"}, ctx)
    assert with_dir.output == "deep/b.py:1: needle"


async def test_binary_and_non_utf8_files_are_skipped_silently(ctx: ToolContext) -> None:
    _put(ctx.root, "blob.bin", b"needle\x00\x01")
    _put(ctx.root, "latin.txt", "needle café\n".encode("latin-1"))
    _put(ctx.root, "ok.txt", "needle\n")
    result = await grep.run({"pattern": "needle"}, ctx)
    assert result.output == "ok.txt:1: needle"
    assert not result.is_error


async def test_path_may_be_a_single_file(ctx: ToolContext) -> None:
    _put(ctx.root, "a.txt", "x\nneedle\n")
    _put(ctx.root, "b.txt", "needle\n")
    result = await grep.run({"pattern": "needle", "path": "a.txt"}, ctx)
    assert result.output == "a.txt:2: needle"


async def test_no_matches(ctx: ToolContext) -> None:
    _put(ctx.root, "a.txt", "hay\n")
    result = await grep.run({"pattern": "needle"}, ctx)
    assert result.output == "No matches for 'needle' in ."
    assert result.summary == "0 matches"


async def test_matches_are_capped_with_a_note(ctx: ToolContext) -> None:
    _put(ctx.root, "many.txt", "hit\n" * (MAX_MATCHES + 50))
    result = await grep.run({"pattern": "hit"}, ctx)
    lines = result.output.splitlines()
    assert len(lines) == MAX_MATCHES + 1
    assert lines[-1].startswith(f"… stopped after {MAX_MATCHES} matches")


async def test_skipped_directories_are_not_searched(ctx: ToolContext) -> None:
    _put(ctx.root, ".git/HEAD", "needle\n")
    _put(ctx.root, "node_modules/x.js", "needle\n")
    _put(ctx.root, "real.js", "needle\n")
    assert (await grep.run({"pattern": "needle"}, ctx)).output == "real.js:1: needle"


async def test_missing_path(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="nowhere does not exist"):
        await grep.run({"pattern": "x", "path": "nowhere"}, ctx)


def test_summary() -> None:
    assert grep.summarize({"pattern": "TODO", "path": "app", "include": "*.py"}) == "grep_search 'TODO' in app (*.py)"
