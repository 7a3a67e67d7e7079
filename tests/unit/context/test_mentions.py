"""@path mentions: what counts as one, what is attached (and refused), completion ranking."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from app.context.mentions import (
    FOOTER,
    HEADER,
    attach_mentions,
    escape_path,
    find_mentions,
    mention_at_cursor,
    project_files,
    rank_paths,
)


def test_what_counts_as_a_mention() -> None:
    assert [m.path for m in find_mentions("explain @src/app.py and @README.md.")] == ["src/app.py", "README.md"]
    assert [m.path for m in find_mentions("@my\\ notes.txt please")] == ["my notes.txt"]
    assert find_mentions("mail me at dev@example.com") == []
    assert find_mentions("use `@latest` and the @ sign") == []
    assert [m.path for m in find_mentions("(see @a.py)")] == ["a.py"]  # the closing bracket is not part of it
    assert find_mentions("(@a.py)") == []  # only after a space or at the start of a line
    assert [m.path for m in find_mentions("line one\n@b.py")] == ["b.py"]


def test_mention_at_cursor_is_the_one_being_typed() -> None:
    text = "look at @src/ap and more"
    mention = mention_at_cursor(text, len("look at @src/ap"))
    assert mention is not None and mention.path == "src/ap" and text[mention.start : mention.end] == "@src/ap"
    assert mention_at_cursor(text, len(text)) is None
    bare = mention_at_cursor("see @", 5)
    assert bare is not None and bare.path == ""


def test_a_mentioned_file_is_attached_once_after_the_text(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    result = attach_mentions("explain @src/app.py, then @src/app.py again", tmp_path)
    assert result.problems == []
    assert result.message == (
        "explain @src/app.py, then @src/app.py again\n\n"
        f"{HEADER}\n"
        "Content from @src/app.py:\nprint('hi')\n\n"
        f"{FOOTER}"
    )


def test_words_that_name_no_file_are_left_alone(tmp_path: Path) -> None:
    result = attach_mentions("ask @team about @pytest.fixture", tmp_path)
    assert result.message == "ask @team about @pytest.fixture" and result.problems == [] and result.attachments == []


def test_paths_outside_the_project_are_refused_and_not_read(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("AWS_SECRET=hunter2\n", encoding="utf-8")
    (project / "link.txt").symlink_to(secret)
    result = attach_mentions(f"read @{secret} and @../secret.txt and @link.txt", project)
    assert "hunter2" not in result.message
    assert result.attachments == []
    assert len(result.problems) == 3 and all("outside" in p for p in result.problems), result.problems


def test_a_fifo_binary_or_directory_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01binary")
    (tmp_path / "docs").mkdir()
    result = attach_mentions("@pipe @blob.bin @docs", tmp_path)
    assert result.attachments == []
    assert [p.split(":", 1)[0] for p in result.problems] == ["@pipe", "@blob.bin", "@docs"]
    assert "not a regular file" in result.problems[0]
    assert "binary" in result.problems[1]
    assert "directory" in result.problems[2]


def test_completion_respects_gitignore(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "app.py").write_text("x", encoding="utf-8")
    (tmp_path / "debug.log").write_text("x", encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x", encoding="utf-8")
    files = project_files(tmp_path)
    assert "src/app.py" in files and ".gitignore" in files
    assert "build/app.py" not in files and "debug.log" not in files


def test_completion_outside_git_walks_the_tree_skipping_noise(tmp_path: Path) -> None:
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "index.js").write_text("x", encoding="utf-8")
    (tmp_path / "main.go").write_text("x", encoding="utf-8")
    assert project_files(tmp_path) == ["main.go"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("app", ["app.py", "src/app.py", "src/tui/app.tcss", "tests/test_app.py"]),
        ("tapp", ["src/tui/app.tcss", "tests/test_app.py"]),  # letters in order: shorter first
        ("", ["app.py", "README.md"]),
    ],
)
def test_ranking_puts_file_name_matches_first(query: str, expected: list[str]) -> None:
    paths = ["README.md", "app.py", "src/app.py", "src/tui/app.tcss", "tests/test_app.py", "docs/guide.md"]
    assert rank_paths(query, paths)[: len(expected)] == expected


def test_escape_path_keeps_spaces_in_one_mention() -> None:
    assert escape_path("my notes.txt") == "my\\ notes.txt"
    assert [m.path for m in find_mentions("@" + escape_path("my notes.txt"))] == ["my notes.txt"]
