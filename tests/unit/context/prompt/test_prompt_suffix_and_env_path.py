"""The suffix rule and resolve_path_from_env, case by case."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.context.prompt import EnvPath, resolve_path_from_env, suffix


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n", None])
def test_blank_suffix_is_empty_not_a_lone_separator(text: str | None) -> None:
    assert suffix(text) == ""


def test_suffix_trims_and_prefixes_the_separator() -> None:
    assert suffix("\n  be brief \n\n") == "\n\n---\n\nbe brief"
    assert suffix("a\n\nb") == "\n\n---\n\na\n\nb"


@pytest.mark.parametrize("value", [None, "", "   ", "\t\n"])
def test_unset_or_blank(value: str | None, tmp_path: Path) -> None:
    assert resolve_path_from_env(value, home=tmp_path) == EnvPath(is_switch=False, value=None, is_disabled=False)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", EnvPath(True, "1", False)),
        ("true", EnvPath(True, "true", False)),
        ("TRUE", EnvPath(True, "true", False)),
        (" True ", EnvPath(True, "true", False)),
        ("0", EnvPath(True, "0", True)),
        ("false", EnvPath(True, "false", True)),
        ("FaLsE", EnvPath(True, "false", True)),
    ],
)
def test_switches_are_lower_cased(value: str, expected: EnvPath, tmp_path: Path) -> None:
    assert resolve_path_from_env(value, home=tmp_path) == expected


def test_tilde_expands_to_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert resolve_path_from_env("~", home=home) == EnvPath(False, str(home), False)
    assert resolve_path_from_env("~/prompts/sys.md", home=home).value == str(home / "prompts" / "sys.md")


def test_tilde_without_a_home_gives_no_value(tmp_path: Path) -> None:
    assert resolve_path_from_env("~/sys.md", home=None) == EnvPath(False, None, False)
    assert resolve_path_from_env("~", home=None) == EnvPath(False, None, False)


def test_paths_are_made_absolute_and_normalised(tmp_path: Path) -> None:
    assert resolve_path_from_env("a/../b/sys.md", home=None, cwd=tmp_path).value == str(tmp_path / "b" / "sys.md")
    assert resolve_path_from_env("/x/./y.md", home=None).value == "/x/y.md"
    # Only ``~`` and ``~/``: ``~user`` stays an ordinary relative name.
    assert resolve_path_from_env("~bob/x", home=tmp_path, cwd=tmp_path).value == str(tmp_path / "~bob" / "x")


def test_relative_path_defaults_to_the_process_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_path_from_env("sys.md", home=None).value == os.path.join(os.getcwd(), "sys.md")
