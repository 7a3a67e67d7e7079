"""Which editor opens a memory ($VISUAL, $EDITOR, vi), run without a shell; paths shown with ~."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from app.tui.editor import EditorError, editor_command, run_editor
from app.tui.short_path import short_path


def _program(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nprintf 'edited\\n' >> \"$1\"\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_visual_wins_over_editor_and_vi_is_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    visual, editor, vi = _program(tmp_path / "bin", "vis"), _program(tmp_path / "bin", "ed"), _program(tmp_path / "bin", "vi")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert editor_command({"VISUAL": str(visual), "EDITOR": str(editor)}) == [str(visual)]
    assert editor_command({"VISUAL": " ", "EDITOR": "ed"}) == ["ed"]
    assert editor_command({}) == ["vi"]
    assert vi.exists()


def test_an_editor_with_arguments_is_split_into_words_not_run_by_a_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _program(tmp_path / "bin", "code")
    spaced = _program(tmp_path / "my editors", "edit")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert editor_command({"EDITOR": "code --wait -n"}) == ["code", "--wait", "-n"]
    assert editor_command({"EDITOR": str(spaced)}) == [str(spaced)], "a path with a space is one program"
    target = tmp_path / "x; rm -rf nothing.md"
    target.write_text("", encoding="utf-8")
    assert run_editor([str(spaced)], target) == 0
    assert target.read_text(encoding="utf-8") == "edited\n", "the odd file name is one argument"


def test_a_missing_or_unreadable_editor_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EditorError, match="Editor 'nano' not found"):
        editor_command({"EDITOR": "nano -w"})
    with pytest.raises(EditorError, match="Cannot read the editor setting"):
        editor_command({"EDITOR": "'unclosed"})
    with pytest.raises(EditorError, match="Editor 'vi' not found"):
        editor_command({})


def test_paths_under_home_are_shown_with_a_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert short_path(tmp_path / "me" / "a" / "b.md") == "~/a/b.md"
    assert short_path(tmp_path / "meadow" / "b.md") == str(tmp_path / "meadow" / "b.md"), "a sibling that shares a prefix is not home"
    assert short_path("/etc/hosts") == "/etc/hosts"
