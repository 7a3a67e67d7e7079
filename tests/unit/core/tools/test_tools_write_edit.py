"""write_file and edit: what they change, what they refuse, and the diffs they preview."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext, ToolError
from app.core.tools.edit import EditTool
from app.core.tools.write_file import WriteFileTool

write = WriteFileTool()
edit = EditTool()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=tmp_path)


async def test_write_creates_file_and_parents(ctx: ToolContext) -> None:
    result = await write.run({"path": "pkg/sub/mod.py", "content": "a = 1\nb = 2\n"}, ctx)
    assert (ctx.root / "pkg/sub/mod.py").read_text() == "a = 1\nb = 2\n"
    assert result.summary == "created, 2 lines"
    assert result.output == "Created pkg/sub/mod.py (2 lines)."
    assert os.listdir(ctx.root / "pkg/sub") == ["mod.py"]  # no temp file left behind


async def test_write_overwrites(ctx: ToolContext) -> None:
    (ctx.root / "a.txt").write_text("old\n")
    result = await write.run({"path": "a.txt", "content": "new\nlines\nhere"}, ctx)
    assert (ctx.root / "a.txt").read_text() == "new\nlines\nhere"
    assert result.summary == "wrote 3 lines"


async def test_write_to_a_directory_is_an_error(ctx: ToolContext) -> None:
    (ctx.root / "d").mkdir()
    with pytest.raises(ToolError, match="d is a directory"):
        await write.run({"path": "d", "content": "x"}, ctx)


async def test_write_outside_the_workspace_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        await write.run({"path": "../escape.txt", "content": "x"}, ctx)
    assert not (ctx.root.parent / "escape.txt").exists()


def test_write_detail_is_a_diff_against_the_current_content(ctx: ToolContext) -> None:
    (ctx.root / "a.txt").write_text("one\ntwo\nthree\n")
    detail = write.detail({"path": "a.txt", "content": "one\n2\nthree\n"}, ctx)
    assert detail.splitlines()[:2] == ["--- a/a.txt", "+++ b/a.txt"]
    assert "-two" in detail.splitlines()
    assert "+2" in detail.splitlines()


def test_write_detail_for_a_new_file_previews_it(ctx: ToolContext) -> None:
    detail = write.detail({"path": "new.py", "content": "x = 1\ny = 2\n"}, ctx)
    assert detail == "new file, 2 lines\nx = 1\ny = 2"


def test_write_detail_never_raises(ctx: ToolContext) -> None:
    assert write.detail({"path": "../x", "content": ""}, ctx).startswith("cannot preview this change:")


async def test_edit_replaces_a_unique_string(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("def f():\n    return 1\n")
    result = await edit.run({"path": "m.py", "old_string": "return 1", "new_string": "return 2"}, ctx)
    assert (ctx.root / "m.py").read_text() == "def f():\n    return 2\n"
    assert result.summary == "1 replacement"


async def test_edit_missing_file(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="ghost.py does not exist; use write_file"):
        await edit.run({"path": "ghost.py", "old_string": "a", "new_string": "b"}, ctx)


async def test_edit_empty_old_string(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("x\n")
    with pytest.raises(ToolError, match="old_string is empty"):
        await edit.run({"path": "m.py", "old_string": "", "new_string": "y"}, ctx)


async def test_edit_not_found_asks_to_reread(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("    indented\n")
    with pytest.raises(ToolError) as info:
        await edit.run({"path": "m.py", "old_string": "  indented  ", "new_string": "x"}, ctx)
    assert str(info.value) == (
        "old_string was not found in m.py; read the file again and copy the exact text, including whitespace"
    )


async def test_edit_not_unique_counts_occurrences(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("a = 1\nb = 1\nc = 1\n")
    with pytest.raises(ToolError) as info:
        await edit.run({"path": "m.py", "old_string": "= 1", "new_string": "= 2"}, ctx)
    assert str(info.value) == (
        "old_string occurs 3 times in m.py; add surrounding lines to make it unique or set replace_all"
    )
    assert (ctx.root / "m.py").read_text() == "a = 1\nb = 1\nc = 1\n"


async def test_edit_replace_all(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("a = 1\nb = 1\nc = 1\n")
    result = await edit.run({"path": "m.py", "old_string": "= 1", "new_string": "= 2", "replace_all": True}, ctx)
    assert (ctx.root / "m.py").read_text() == "a = 2\nb = 2\nc = 2\n"
    assert result.summary == "3 replacements"


async def test_edit_identical_strings_is_an_error(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("x\n")
    with pytest.raises(ToolError, match="the same"):
        await edit.run({"path": "m.py", "old_string": "x", "new_string": "x"}, ctx)


async def test_edit_keeps_crlf_line_endings(ctx: ToolContext) -> None:
    (ctx.root / "dos.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await edit.run({"path": "dos.txt", "old_string": "one\ntwo", "new_string": "1\n2"}, ctx)
    assert (ctx.root / "dos.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_edit_refuses_binary_files(ctx: ToolContext) -> None:
    (ctx.root / "blob.bin").write_bytes(b"abc\x00def")
    with pytest.raises(ToolError, match="binary"):
        await edit.run({"path": "blob.bin", "old_string": "abc", "new_string": "x"}, ctx)


def test_edit_detail_is_the_diff_of_the_change(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("a\nb\nc\n")
    detail = edit.detail({"path": "m.py", "old_string": "b", "new_string": "B"}, ctx)
    lines = detail.splitlines()
    assert lines[0] == "--- a/m.py"
    assert "-b" in lines and "+B" in lines
    assert (ctx.root / "m.py").read_text() == "a\nb\nc\n"  # previewing changes nothing


def test_edit_detail_reports_why_it_cannot_preview(ctx: ToolContext) -> None:
    (ctx.root / "m.py").write_text("a\n")
    detail = edit.detail({"path": "m.py", "old_string": "zzz", "new_string": "B"}, ctx)
    assert detail.startswith("cannot preview this change: old_string was not found")


def test_summaries_and_subjects() -> None:
    assert edit.summarize({"path": "app/x.py"}) == "edit app/x.py"
    assert write.summarize({"path": "app/x.py", "content": ""}) == "write_file app/x.py"
    assert edit.subject({"path": "app//x.py"}) == "app/x.py"
    assert write.subject({"path": "/abs/x.py"}) == "/abs/x.py"
