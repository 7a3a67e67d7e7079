"""The copy-on-write overlay: read-through, redirected writes, tombstones, conflicts, cleanup, escapes."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from app.core.overlay import OverlayConflict, OverlayFileSystem, remove_stale_shadows
from app.core.tools.errors import ToolError
from tests.workspace import Workspace


@pytest.fixture(autouse=True)
def _shadows_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shadows these tests leave behind on purpose go with tmp_path, not into /tmp."""
    shadows = tmp_path / "shadows"
    shadows.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shadows))


WORKSPACE = Workspace(files={"src/a.py": "a = 1\n", "README.md": "# readme\n"})


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_reads_go_through_and_writes_stay_in_the_shadow(workspace: Path) -> None:
    before = _snapshot(workspace)
    fs = OverlayFileSystem(workspace)
    assert fs.read_text(workspace / "src" / "a.py") == "a = 1\n"
    fs.write_text(workspace / "src" / "a.py", "a = 2\n")
    fs.write_text(workspace / "src" / "new" / "b.py", "b = 1\n")
    assert fs.read_text(workspace / "src" / "a.py") == "a = 2\n"
    assert fs.exists(workspace / "src" / "new" / "b.py") and fs.is_dir(workspace / "src" / "new")
    assert [p.name for p in fs.iterdir(workspace / "src")] == ["a.py", "new"]
    assert sorted(p.name for p in fs.walk(workspace)) == ["README.md", "a.py", "b.py"]
    assert _snapshot(workspace) == before, "the real workspace is untouched"
    assert fs.shadow.exists() and not fs.shadow.is_relative_to(workspace)


def test_deletes_are_tombstones(workspace: Path) -> None:
    fs = OverlayFileSystem(workspace)
    fs.delete(workspace / "README.md")
    assert not fs.exists(workspace / "README.md") and (workspace / "README.md").exists()
    with pytest.raises(FileNotFoundError):
        fs.read_bytes(workspace / "README.md")
    assert "README.md" not in [p.name for p in fs.iterdir(workspace)]
    fs.write_text(workspace / "README.md", "back\n")
    assert fs.read_text(workspace / "README.md") == "back\n"


def test_apply_lands_every_change_and_removes_the_shadow(workspace: Path) -> None:
    fs = OverlayFileSystem(workspace)
    fs.write_text(workspace / "src" / "a.py", "a = 2\nb = 3\n")
    fs.write_text(workspace / "docs" / "new.md", "new\n")
    fs.delete(workspace / "README.md")
    changes = {c.path.name: c for c in fs.changes()}
    assert changes["a.py"].kind == "write" and (changes["a.py"].added, changes["a.py"].removed) == (2, 1)
    assert changes["new.md"].kind == "create" and changes["README.md"].kind == "delete"
    fs.apply()
    assert (workspace / "src" / "a.py").read_text() == "a = 2\nb = 3\n"
    assert (workspace / "docs" / "new.md").read_text() == "new\n"
    assert not (workspace / "README.md").exists()
    assert not fs.shadow.exists()


def test_a_file_changed_on_disk_refuses_the_whole_apply(workspace: Path) -> None:
    fs = OverlayFileSystem(workspace)
    fs.write_text(workspace / "src" / "a.py", "a = 2\n")
    fs.write_text(workspace / "other.py", "x\n")
    (workspace / "src" / "a.py").write_text("a = 99  # edited by the person meanwhile\n")
    with pytest.raises(OverlayConflict) as caught:
        fs.apply()
    assert "changed on disk" in str(caught.value) and "a.py" in str(caught.value)
    assert not (workspace / "other.py").exists(), "nothing applied"
    assert (workspace / "src" / "a.py").read_text().startswith("a = 99")


def test_a_file_created_meanwhile_is_a_conflict_too(workspace: Path) -> None:
    fs = OverlayFileSystem(workspace)
    fs.write_text(workspace / "new.py", "mine\n")
    (workspace / "new.py").write_text("theirs\n")
    assert fs.conflicts() == [(workspace / "new.py").resolve()]


def test_a_file_it_only_read_that_changed_meanwhile_refuses_the_apply(workspace: Path) -> None:
    fs = OverlayFileSystem(workspace)
    fs.read_text(workspace / "src" / "a.py")  # the edit below was decided on what a.py said
    fs.write_text(workspace / "other.py", "x\n")
    (workspace / "src" / "a.py").write_text("a = 99  # edited by the person meanwhile\n")
    with pytest.raises(OverlayConflict):
        fs.apply()
    assert not (workspace / "other.py").exists(), "nothing applied"


def test_discard_leaves_the_workspace_byte_identical(workspace: Path) -> None:
    before = _snapshot(workspace)
    fs = OverlayFileSystem(workspace)
    fs.write_text(workspace / "src" / "a.py", "changed\n")
    fs.delete(workspace / "README.md")
    fs.discard()
    assert _snapshot(workspace) == before and not fs.shadow.exists()


def test_escapes_are_refused(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (workspace / "link.txt").symlink_to(outside)
    fs = OverlayFileSystem(workspace)
    for target in (workspace / ".." / "outside.txt", outside, workspace / "link.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            fs.write_text(target, "x")
    with pytest.raises(ToolError):
        fs.read_bytes(workspace / "link.txt")
    assert outside.read_text() == "secret\n"


def test_shadows_of_dead_processes_are_swept_and_others_left(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"agentctx-{dead.pid}-speculation-abc123"
    (stale / "src").mkdir(parents=True)
    mine = tmp_path / f"agentctx-{os.getpid()}-speculation-def456"
    alive = tmp_path / "agentctx-1-speculation-ghi789"  # init never dies
    unrelated = tmp_path / "agentctx-shots-xyz"
    for folder in (mine, alive, unrelated):
        folder.mkdir()
    assert remove_stale_shadows(tmp_path) == [stale]
    assert not stale.exists() and mine.exists() and alive.exists() and unrelated.exists()
