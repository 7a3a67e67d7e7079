"""Settings layers, errors that name the file and line, warnings for unknown keys; paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import SettingsError, load_settings
from app.paths import Paths, find_project_root, sanitize_project_path
from tests.trust_support import trust_folder


def _paths(tmp_path: Path) -> Paths:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    (project / "src").mkdir(exist_ok=True)
    return Paths(cwd=project / "src", config_dir=tmp_path / "config", data_dir=tmp_path / "data")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_defaults_without_any_file(tmp_path: Path) -> None:
    settings = load_settings(_paths(tmp_path), env={})
    assert settings.model.name == "" and not settings.has_endpoint
    assert settings.approval_mode == "default"
    assert settings.warnings == [] and settings.sources == []


def test_layers_user_then_project_then_env_then_flags(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _write(paths.user_settings_file, "model:\n  name: user-model\n  base_url: http://user/v1\n  max_retries: 7\n")
    _write(paths.project_settings_file, "model:\n  name: project-model\napproval_mode: auto-edit\n")
    trust_folder(paths)
    settings = load_settings(paths, env={})
    assert (settings.model.name, settings.model.base_url, settings.model.max_retries) == ("project-model", "http://user/v1", 7)
    assert settings.approval_mode == "auto-edit"
    assert settings.sources == [str(paths.user_settings_file), str(paths.project_settings_file)]
    settings = load_settings(paths, env={"OPENAI_MODEL": "env-model", "OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "sk"})
    assert (settings.model.name, settings.model.base_url, settings.model.api_key) == ("env-model", "http://env/v1", "sk")
    settings = load_settings(paths, {"model.name": "flag-model", "approval_mode": None}, env={"OPENAI_MODEL": "env-model"})
    assert settings.model.name == "flag-model"
    assert settings.approval_mode == "auto-edit", "an unset flag does not override"


def test_env_strings_are_converted_to_the_field_type(tmp_path: Path) -> None:
    settings = load_settings(_paths(tmp_path), env={"AGENTCTX_CONTEXT_WINDOW": "131_072"})
    assert settings.model.context_window == 131072
    settings = load_settings(_paths(tmp_path), env={"AGENTCTX_CONTEXT_WINDOW": "lots"})
    assert settings.model.context_window is None
    assert any("model.context_window" in w and "integer" in w for w in settings.warnings)


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _write(paths.project_settings_file, "model:\n  name: a\n   base_url: b\n")
    trust_folder(paths)
    with pytest.raises(SettingsError) as caught:
        load_settings(paths, env={})
    message = str(caught.value)
    assert str(paths.project_settings_file) in message
    assert "line 3" in message


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _write(paths.user_settings_file, "- a\n- b\n")
    with pytest.raises(SettingsError, match="must be a mapping"):
        load_settings(paths, env={})


def test_non_utf8_settings_file_is_a_clear_error(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    paths.user_settings_file.parent.mkdir(parents=True)
    paths.user_settings_file.write_bytes(b"model:\n  name: \xff\xfe\n")
    with pytest.raises(SettingsError, match="not UTF-8"):
        load_settings(paths, env={})


def test_unknown_keys_and_wrong_types_warn_and_keep_defaults(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _write(
        paths.user_settings_file,
        "colour: blue\nmodel:\n  nmae: typo\n  max_retries: many\npermissions:\n  allow: 5\nui: 3\n",
    )
    settings = load_settings(paths, env={})
    text = "\n".join(settings.warnings)
    assert "unknown setting 'colour'" in text
    assert "unknown setting 'model.nmae'" in text
    assert "'model.max_retries' must be an integer" in text
    assert "'permissions.allow' must be a list of strings" in text
    assert "'ui' must be a mapping" in text
    assert settings.model.max_retries == 4 and settings.permissions.allow == []


def test_invalid_approval_mode_falls_back_with_a_warning(tmp_path: Path) -> None:
    settings = load_settings(_paths(tmp_path), env={"AGENTCTX_APPROVAL_MODE": "reckless"})
    assert settings.approval_mode == "default"
    assert any("reckless" in w for w in settings.warnings)


def test_empty_file_is_fine(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _write(paths.user_settings_file, "")
    assert load_settings(paths, env={}).warnings == []


def test_project_root_is_the_git_root(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    assert paths.project_root == (tmp_path / "proj").resolve()
    assert paths.project_settings_file == (tmp_path / "proj" / ".qwen" / "settings.yaml").resolve()
    lone = tmp_path / "lone"
    lone.mkdir()
    assert find_project_root(lone) == lone.resolve()


def test_project_state_lives_under_a_sanitized_name(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    name = paths.project_state_dir.name
    assert paths.project_state_dir.parent == tmp_path / "data" / "projects"
    assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
    assert paths.chats_dir == paths.project_state_dir / "chats"
    assert sanitize_project_path(Path("/home/me/my project.v2")) == "-home-me-my-project-v2"


def test_long_project_paths_stay_distinct_and_bounded() -> None:
    a = sanitize_project_path(Path("/x" * 200 + "/a"))
    b = sanitize_project_path(Path("/x" * 200 + "/b"))
    assert a != b and len(a) <= 180 and len(b) <= 180


def test_agentctx_home_relocates_config_and_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "h"))
    paths = Paths.for_cwd(tmp_path)
    assert paths.config_dir == tmp_path / "h" / "config"
    assert paths.data_dir == tmp_path / "h" / "data"


def test_camel_case_keys_and_a_single_file_name(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _write(paths.project_settings_file, "context:\n  fileName: CLAUDE.md\n  includeDirectories: [docs]\n  perFileChars: 5000\n")
    trust_folder(paths)
    settings = load_settings(paths, env={})
    assert settings.context.file_name == ["CLAUDE.md"]
    assert settings.context.include_directories == ["docs"]
    assert settings.context.per_file_chars == 5000
    assert settings.warnings == []
