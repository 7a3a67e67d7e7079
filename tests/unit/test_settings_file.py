"""Updating one setting keeps comments and other blocks, and the result reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import SettingsError
from app.settings_file import update_setting


def test_creates_the_file_when_missing(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    update_setting(path, "skills.disabled", ["review"])
    assert path.read_text() == "skills:\n  disabled:\n  - review\n"


def test_keeps_comments_and_other_blocks(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    path.write_text(
        "# my model\nmodel:\n  name: qwen3-coder-plus  # the fast one\nskills:\n  disabled: [old]\n  other: 1\n# keymap below\nkeymap:\n  help: f2\n",
        encoding="utf-8",
    )
    update_setting(path, "skills.disabled", ["review", "stuck"])
    text = path.read_text()
    assert text.startswith("# my model\nmodel:\n  name: qwen3-coder-plus  # the fast one\n")
    assert "skills:\n  disabled:\n  - review\n  - stuck\n  other: 1\n" in text
    assert text.endswith("# keymap below\nkeymap:\n  help: f2\n")


def test_appends_a_new_block(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    path.write_text("model:\n  name: m", encoding="utf-8")
    update_setting(path, "skills.disabled", [])
    assert path.read_text() == "model:\n  name: m\nskills:\n  disabled: []\n"


def test_a_malformed_file_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "settings.yaml"
    path.write_text("model: [unclosed\n", encoding="utf-8")
    with pytest.raises(SettingsError):
        update_setting(path, "skills.disabled", ["x"])
    assert path.read_text() == "model: [unclosed\n"
