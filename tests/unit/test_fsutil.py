"""Atomic writes: readers see the old or the new file, never half; no temp files left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.fsutil import atomic_write_text


def test_creates_parents_and_writes(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "file.md"
    atomic_write_text(target, "hello\n")
    assert target.read_text(encoding="utf-8") == "hello\n"
    assert [p.name for p in target.parent.iterdir()] == ["file.md"]


def test_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old")
    os.chmod(target, 0o750)
    atomic_write_text(target, "new")
    assert target.stat().st_mode & 0o777 == 0o750


def test_new_files_get_ordinary_permissions_or_the_given_mode(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "plain.txt", "x")
    assert (tmp_path / "plain.txt").stat().st_mode & 0o777 != 0o600
    atomic_write_text(tmp_path / "secret.txt", "x", mode=0o600)
    assert (tmp_path / "secret.txt").stat().st_mode & 0o777 == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "memory.md"
    target.write_text("precious")

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "half")
    assert target.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["memory.md"]
