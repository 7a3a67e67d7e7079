"""A file name that is not UTF-8, through every tool that lists or takes a path: one escaped form, round-trip.

Each test calls the tool itself (not the ``run_tool`` boundary, not the request's safety net), so
each source's own escaping is what is checked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.context.prompt.prelude import prelude_text
from app.core.tools.base import ToolContext, ToolResult
from app.core.tools.glob_tool import GlobTool
from app.core.tools.grep_search import GrepSearchTool
from app.core.tools.invoke import run_tool
from app.core.tools.list_directory import ListDirectoryTool
from app.core.tools.read_file import ReadFileTool
from app.core.tools.ripgrep import Ripgrep, find_ripgrep
from app.core.tools.base import Tool

SHOWN = "caf\\xe9.txt"


def _make(root: Path, name: bytes, content: bytes) -> None:
    with open(os.path.join(os.fsencode(root), name), "wb") as handle:
        handle.write(content)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    _make(tmp_path, b"caf\xe9.txt", b"bonjour\n")
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"d\xffir"))
    return ToolContext(root=tmp_path)


def _encodable(result: ToolResult) -> None:
    result.output.encode("utf-8")
    result.summary.encode("utf-8")


async def test_list_directory_shows_each_odd_byte_as_backslash_x(ctx: ToolContext) -> None:
    result = await ListDirectoryTool().run({"path": "."}, ctx)
    _encodable(result)
    assert result.output.splitlines() == ["d\\xffir/", f"{SHOWN}  8 B"]


async def test_glob_shows_the_same_form(ctx: ToolContext) -> None:
    result = await GlobTool().run({"pattern": "*.txt"}, ctx)
    _encodable(result)
    assert result.output.splitlines() == [SHOWN]


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
async def test_grep_search_shows_the_same_form(ctx: ToolContext, engine: str, tmp_path: Path) -> None:
    if engine == "ripgrep" and find_ripgrep() is None:
        pytest.skip("no rg binary")
    tool = GrepSearchTool() if engine == "ripgrep" else GrepSearchTool(Ripgrep(tmp_path / "no-such-rg"))
    result = await tool.run({"pattern": "bonjour"}, ctx)
    _encodable(result)
    assert result.output == f"{SHOWN}:1: bonjour"


async def test_the_shown_form_reads_the_same_file_back(ctx: ToolContext) -> None:
    result = await ReadFileTool().run({"path": SHOWN}, ctx)
    _encodable(result)
    assert "bonjour" in result.output
    assert ctx.resolve(SHOWN) == Path(os.fsdecode(os.path.join(os.fsencode(ctx.root), b"caf\xe9.txt")))
    assert ctx.resolve("d\\xffir/new.txt").parent.name == os.fsdecode(b"d\xffir")


async def test_a_name_that_really_holds_backslash_x_wins_as_written(ctx: ToolContext) -> None:
    (ctx.root / SHOWN).write_text("the literal one\n")
    result = await ReadFileTool().run({"path": SHOWN}, ctx)
    assert "the literal one" in result.output


async def test_a_missing_file_is_named_in_the_shown_form(ctx: ToolContext) -> None:
    result = await run_tool(ReadFileTool(), {"path": os.fsdecode(b"gone\xe9")}, ctx)
    _encodable(result)
    assert result.is_error


class _EchoesRawNames(Tool):
    """A tool that forgets to escape (as shell output naming such a file would be)."""

    name = "echo_names"

    async def run(self, args, ctx):  # type: ignore[no-untyped-def]
        return ToolResult(output=os.fsdecode(b"caf\xe9.txt"), summary=os.fsdecode(b"1 \xe9"))


async def test_run_tool_escapes_what_a_tool_forgot(ctx: ToolContext) -> None:
    result = await run_tool(_EchoesRawNames(), {}, ctx)
    assert (result.output, result.summary) == (SHOWN, "1 \\xe9")


def test_the_prelude_lists_it_in_the_same_form(ctx: ToolContext) -> None:
    text = prelude_text(ctx.root, ctx.root)
    text.encode("utf-8")
    assert f"- {SHOWN}" in text and "- d\\xffir/" in text
