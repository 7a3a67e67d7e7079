"""The filesystem seam and workspace confinement."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.tools.base import ToolContext, ToolError
from app.core.tools.filesystem import RealFileSystem
from app.core.tools.invoke import run_tool
from app.core.tools.read_file import ReadFileTool
from app.core.tools.write_file import WriteFileTool


@pytest.fixture
def fs() -> RealFileSystem:
    return RealFileSystem()


def test_read_text_keeps_crlf_line_endings(tmp_path: Path, fs: RealFileSystem) -> None:
    target = tmp_path / "dos.txt"
    target.write_bytes(b"a\r\nb\r\n")
    assert fs.read_text(target) == "a\r\nb\r\n"


def test_read_text_of_non_utf8_file_names_the_file(tmp_path: Path, fs: RealFileSystem) -> None:
    target = tmp_path / "latin1.txt"
    target.write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError) as info:
        fs.read_text(target)
    message = str(info.value)
    assert "latin1.txt" in message
    assert "not UTF-8" in message
    assert "0xe9" in message


def test_write_text_creates_parents_and_leaves_no_temp_file(tmp_path: Path, fs: RealFileSystem) -> None:
    target = tmp_path / "a" / "b" / "new.txt"
    fs.write_text(target, "hello\n")
    assert target.read_text() == "hello\n"
    assert os.listdir(target.parent) == ["new.txt"]


def test_failed_write_keeps_the_old_content_and_no_temp_file(
    tmp_path: Path, fs: RealFileSystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("old\n")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        fs.write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["keep.txt"]


def test_iterdir_is_sorted(tmp_path: Path, fs: RealFileSystem) -> None:
    for name in ("b", "a", "c"):
        (tmp_path / name).write_text("")
    assert [p.name for p in fs.iterdir(tmp_path)] == ["a", "b", "c"]


def test_walk_yields_files_and_skips_noise_directories(tmp_path: Path, fs: RealFileSystem) -> None:
    for rel in ("src/a.py", "src/deep/b.py", ".git/config", "node_modules/x/i.js", "pkg/__pycache__/a.pyc",
                ".venv/lib/site.py", ".github/ci.yml", "top.txt"):  # fmt: skip
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    found = [p.relative_to(tmp_path).as_posix() for p in fs.walk(tmp_path)]
    # A directory's own files come first, then its subdirectories in name order.
    assert found == ["top.txt", ".github/ci.yml", "src/a.py", "src/deep/b.py"]


def test_walk_does_not_follow_directory_symlinks(tmp_path: Path, fs: RealFileSystem) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.txt").write_text("x")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    found = [p.relative_to(tmp_path).as_posix() for p in fs.walk(tmp_path)]
    assert found == ["real/f.txt"]


def test_delete_removes_a_file(tmp_path: Path, fs: RealFileSystem) -> None:
    target = tmp_path / "gone.txt"
    target.write_text("x")
    fs.delete(target)
    assert not fs.exists(target)


def test_realpath_works_for_missing_paths(tmp_path: Path, fs: RealFileSystem) -> None:
    assert fs.realpath(tmp_path / "missing" / "x") == tmp_path.resolve() / "missing" / "x"


def test_resolve_refuses_dotdot_escape(tmp_path: Path) -> None:
    ctx = ToolContext(root=tmp_path)
    with pytest.raises(ToolError, match="outside the workspace"):
        ctx.resolve("../elsewhere.txt")
    assert ctx.resolve("sub/../inside.txt") == tmp_path / "inside.txt"


async def test_symlink_pointing_outside_is_refused_by_tools(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (root / "link").symlink_to(outside, target_is_directory=True)
    ctx = ToolContext(root=root)

    read = await run_tool(ReadFileTool(), {"path": "link/secret.txt"}, ctx)
    assert read.is_error and "outside the workspace" in read.output
    write = await run_tool(WriteFileTool(), {"path": "link/new.txt", "content": "x"}, ctx)
    assert write.is_error
    assert not (outside / "new.txt").exists()


async def test_run_tool_turns_os_errors_into_error_results(tmp_path: Path) -> None:
    class Exploding(ReadFileTool):
        async def run(self, args, ctx):  # type: ignore[no-untyped-def]
            raise PermissionError(13, "Permission denied", "/x/y")

    result = await run_tool(Exploding(), {"path": "a"}, ToolContext(root=tmp_path))
    assert result.is_error
    assert result.output == "Permission denied (/x/y)"


async def test_run_tool_rejects_non_object_arguments(tmp_path: Path) -> None:
    result = await run_tool(ReadFileTool(), ["a"], ToolContext(root=tmp_path))  # type: ignore[arg-type]
    assert result.is_error and "JSON object" in result.output
