"""AGENTCTX_SYSTEM_MD replaces the built-in sections; AGENTCTX_WRITE_SYSTEM_MD writes the base text out."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.prompt import GitInfo, PromptContext, SystemPromptError, build_system_prompt

GIT = GitInfo(root=Path("/repo"), branch="main", head="abc1234", commits=("abc1234 Fix parser",), status=())


def _context(cwd: Path, env: dict[str, str], **overrides: object) -> PromptContext:
    values: dict[str, object] = {"cwd": cwd, "project_root": cwd, "model": "gpt-4o", "env": env, "home": cwd / "home"}
    values.update(overrides)
    return PromptContext(**values)  # type: ignore[arg-type]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("switch", ["1", "true", "TRUE"])
def test_switch_reads_the_default_file(tmp_path: Path, switch: str) -> None:
    path = _write(tmp_path / ".qwen" / "system.md", "You are a custom agent.\n")
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": switch}))
    assert prompt.names() == ["custom system prompt"]
    assert prompt.sections[0].source == str(path)
    assert prompt.text == prompt.base_text == "You are a custom agent.\n"


def test_path_reads_that_file_with_tilde_expansion(tmp_path: Path) -> None:
    path = _write(tmp_path / "home" / "prompts" / "mine.md", "Custom")
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": "~/prompts/mine.md"}))
    assert prompt.sections[0].source == str(path) and prompt.base_text == "Custom"


def test_relative_path_is_taken_from_the_working_directory(tmp_path: Path) -> None:
    _write(tmp_path / "p" / "sys.md", "Relative")
    assert build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": "p/sys.md"})).base_text == "Relative"


@pytest.mark.parametrize("off", ["0", "false", "False", "", "  "])
def test_disabled_or_blank_uses_the_builtin_prompt(tmp_path: Path, off: str) -> None:
    _write(tmp_path / ".qwen" / "system.md", "should not be used")
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": off}))
    assert prompt.names()[0] == "base prompt"


def test_missing_file_raises_with_the_exact_message(tmp_path: Path) -> None:
    with pytest.raises(SystemPromptError) as raised:
        build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": "1"}))
    assert str(raised.value) == f"missing system prompt file '{tmp_path / '.qwen' / 'system.md'}'"
    with pytest.raises(SystemPromptError) as raised:
        build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": str(tmp_path / "nope.md")}))
    assert str(raised.value) == f"missing system prompt file '{tmp_path / 'nope.md'}'"


def test_suffixes_and_git_status_still_follow_the_custom_prompt(tmp_path: Path) -> None:
    _write(tmp_path / ".qwen" / "system.md", "Custom\n")
    ctx = _context(tmp_path, {"AGENTCTX_SYSTEM_MD": "true"}, user_memory="mem", append="app", git=GIT)
    prompt = build_system_prompt(ctx)
    assert prompt.names() == ["custom system prompt", "user memory", "git status", "appended instructions"]
    assert prompt.text.startswith("Custom\n\n\n---\n\nmem\n\nGit snapshot at conversation start.")
    assert prompt.text.endswith("```\n\n---\n\napp")
    assert "".join(s.text for s in prompt.sections) == prompt.text


def test_write_switch_writes_the_base_text_to_the_default_path(tmp_path: Path) -> None:
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_WRITE_SYSTEM_MD": "1"}, user_memory="mem", git=GIT))
    target = tmp_path / ".qwen" / "system.md"
    assert prompt.written_to == target and prompt.warnings == []
    assert target.read_text(encoding="utf-8") == prompt.base_text
    assert "mem" not in prompt.base_text and "mem" in prompt.text


def test_write_path_creates_parent_directories(tmp_path: Path) -> None:
    target = tmp_path / "out" / "deep" / "prompt.md"
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_WRITE_SYSTEM_MD": str(target)}))
    assert prompt.written_to == target
    assert target.read_text(encoding="utf-8") == prompt.base_text


def test_written_file_can_be_read_back_as_the_system_md(tmp_path: Path) -> None:
    first = build_system_prompt(_context(tmp_path, {"AGENTCTX_WRITE_SYSTEM_MD": "true"}))
    again = build_system_prompt(_context(tmp_path, {"AGENTCTX_SYSTEM_MD": "true"}))
    assert again.base_text == first.base_text


@pytest.mark.parametrize("off", ["0", "false", ""])
def test_write_disabled_writes_nothing(tmp_path: Path, off: str) -> None:
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_WRITE_SYSTEM_MD": off}))
    assert prompt.written_to is None and not (tmp_path / ".qwen").exists()


def test_a_failed_write_is_a_warning_not_an_error(tmp_path: Path) -> None:
    blocker = _write(tmp_path / "file", "a file, not a directory")
    prompt = build_system_prompt(_context(tmp_path, {"AGENTCTX_WRITE_SYSTEM_MD": str(blocker / "prompt.md")}))
    assert prompt.written_to is None
    assert len(prompt.warnings) == 1 and str(blocker / "prompt.md") in prompt.warnings[0]
    assert prompt.names()[0] == "base prompt"
