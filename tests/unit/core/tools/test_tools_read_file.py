"""read_file: numbering, windows, truncation notes, images and clear errors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.core.tools import read_file as read_file_module
from app.core.tools.base import ToolContext, ToolError
from app.core.tools.read_file import ReadFileTool

tool = ReadFileTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


def _write_lines(path: Path, count: int) -> None:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))


async def test_whole_file_with_line_numbers(ctx: ToolContext) -> None:
    (ctx.root / "a.txt").write_text("alpha\nbeta\n")
    result = await tool.run({"path": "a.txt"}, ctx)
    assert result.output == "     1\talpha\n     2\tbeta"
    assert result.summary == "2 lines"
    assert not result.is_error


async def test_offset_and_limit_select_a_window_with_a_note(ctx: ToolContext) -> None:
    _write_lines(ctx.root / "long.txt", 50)
    result = await tool.run({"path": "long.txt", "offset": 10, "limit": 3}, ctx)
    lines = result.output.splitlines()
    assert lines[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert lines[3] == "… 38 more lines; read with offset=13"
    assert result.summary == "3 of 50 lines"


async def test_default_limit_is_2000_lines(ctx: ToolContext) -> None:
    _write_lines(ctx.root / "huge.txt", 2340)
    result = await tool.run({"path": "huge.txt"}, ToolContext(root=ctx.root, output_limit=0))
    lines = result.output.splitlines()
    assert lines[-2] == "  2000\tline 2000"
    assert lines[-1] == "… 340 more lines; read with offset=2001"


async def test_output_limit_stops_early_and_says_where_to_continue(ctx: ToolContext) -> None:
    _write_lines(ctx.root / "long.txt", 100)
    small = ToolContext(root=ctx.root, output_limit=60)
    result = await tool.run({"path": "long.txt"}, small)
    rows = result.output.splitlines()
    shown = len(rows) - 1
    assert 1 <= shown < 100
    assert rows[-1] == f"… {100 - shown} more lines; read with offset={shown + 1}"


async def test_long_lines_are_cut_with_a_marker(ctx: ToolContext) -> None:
    (ctx.root / "wide.txt").write_text("x" * 2500 + "\n")
    result = await tool.run({"path": "wide.txt"}, ctx)
    assert result.output.endswith("… [line cut, 500 more chars]")
    assert result.output.count("x") == 2000


async def test_offset_past_the_end_is_an_error(ctx: ToolContext) -> None:
    _write_lines(ctx.root / "short.txt", 3)
    with pytest.raises(ToolError, match="offset 9 is past the end of short.txt, which has 3 lines"):
        await tool.run({"path": "short.txt", "offset": 9}, ctx)


async def test_empty_file(ctx: ToolContext) -> None:
    (ctx.root / "empty.txt").write_text("")
    result = await tool.run({"path": "empty.txt"}, ctx)
    assert result.output == "(empty.txt is empty)"
    assert result.summary == "0 lines"


async def test_binary_file_is_a_clear_error(ctx: ToolContext) -> None:
    (ctx.root / "tool.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    with pytest.raises(ToolError, match="tool.bin looks like a binary file"):
        await tool.run({"path": "tool.bin"}, ctx)


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


async def test_an_image_is_returned_as_an_image_for_a_model_that_takes_them(ctx: ToolContext) -> None:
    (ctx.root / "shot.data").write_bytes(PNG)  # recognised by its bytes, not its name
    result = await tool.run({"path": "shot.data"}, replace(ctx, images=True))
    assert result.summary == "PNG image, 2 KB" and not result.is_error
    assert result.output == "shot.data is a PNG image (2 KB); it follows as an image."
    [image] = result.images
    assert image.mime == "image/png" and image.size == len(PNG) and image.source == "read_file shot.data"


async def test_an_image_is_described_not_sent_to_a_model_that_does_not_take_them(ctx: ToolContext) -> None:
    (ctx.root / "logo.png").write_bytes(PNG)
    result = await tool.run({"path": "logo.png"}, ctx)
    assert result.images == () and result.summary == "PNG image, not sent"
    assert "model.vision: true" in result.output


async def test_an_image_larger_than_the_cap_is_described(ctx: ToolContext, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(read_file_module, "MAX_IMAGE_BYTES", 1024)
    (ctx.root / "big.png").write_bytes(PNG)
    result = await tool.run({"path": "big.png"}, replace(ctx, images=True))
    assert result.images == () and result.summary == "PNG image, too large to send"


async def test_non_utf8_file_names_the_relative_path(ctx: ToolContext) -> None:
    (ctx.root / "old.txt").write_bytes("naïve".encode("latin-1"))
    with pytest.raises(ToolError, match=r"^old.txt is not UTF-8 text"):
        await tool.run({"path": "old.txt"}, ctx)


async def test_missing_file_and_directory_errors(ctx: ToolContext) -> None:
    (ctx.root / "dir").mkdir()
    with pytest.raises(ToolError, match="nope.txt does not exist"):
        await tool.run({"path": "nope.txt"}, ctx)
    with pytest.raises(ToolError, match="dir is a directory"):
        await tool.run({"path": "dir"}, ctx)


async def test_bad_argument_types_are_reported(ctx: ToolContext) -> None:
    _write_lines(ctx.root / "a.txt", 3)
    with pytest.raises(ToolError, match="'limit' must be a whole number"):
        await tool.run({"path": "a.txt", "limit": "many"}, ctx)
    with pytest.raises(ToolError, match="'path' is required"):
        await tool.run({}, ctx)
    result = await tool.run({"path": "a.txt", "offset": "2", "limit": 1.0}, ctx)
    assert result.output.startswith("     2\tline 2")


async def test_crlf_is_not_shown(ctx: ToolContext) -> None:
    (ctx.root / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    result = await tool.run({"path": "dos.txt"}, ctx)
    assert "\r" not in result.output


def test_summarize_and_subject() -> None:
    assert tool.summarize({"path": "README.md", "offset": 10, "limit": 31}) == "read_file README.md:10-40"
    assert tool.summarize({"path": "README.md"}) == "read_file README.md"
    assert tool.summarize({"path": "README.md", "offset": 5}) == "read_file README.md:5-"
    assert tool.subject({"path": "./app/../app/x.py"}) == "app/x.py"
