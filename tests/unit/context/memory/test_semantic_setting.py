"""memory.semantic: auto | on | off, read from the settings file (where YAML makes on/off booleans) and the
environment, and the one line said when it is on but the embeddings extra is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import load_settings
from app.context.memory.embedder import INSTALL_HINT
from app.context.memory.semantic import SemanticRecall, resolve_mode, semantic_from_setting
from app.paths import Paths


def _settings(tmp_path: Path, text: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    paths = Paths.for_cwd(tmp_path)
    paths.user_settings_file.parent.mkdir(parents=True, exist_ok=True)
    paths.user_settings_file.write_text(text, encoding="utf-8")
    return load_settings(paths, env=env or {})


@pytest.mark.parametrize(
    ("text", "expected"),
    [("memory: {semantic: on}\n", True), ("memory: {semantic: off}\n", False), ("memory: {semantic: 'on'}\n", "on"), ("memory: {}\n", "auto")],
)
def test_the_setting_is_read_from_the_user_file(tmp_path: Path, text: str, expected: object) -> None:
    settings = _settings(tmp_path, text)
    assert settings.memory.semantic == expected and not settings.warnings
    assert resolve_mode(settings.memory.semantic, installed=lambda: True).enabled is (expected is not False)


def test_the_environment_overrides_the_file(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "memory: {semantic: on}\n", env={"AGENTCTX_MEMORY_SEMANTIC": "off"})
    assert resolve_mode(settings.memory.semantic, installed=lambda: True).enabled is False


def test_on_without_the_extra_names_the_setting_and_the_pip_command() -> None:
    choice = resolve_mode("on", installed=lambda: False)
    assert choice.enabled is False
    assert choice.notice is not None and "memory.semantic" in choice.notice and INSTALL_HINT in choice.notice
    assert "\n" not in choice.notice
    assert resolve_mode(True, installed=lambda: False).notice == choice.notice  # YAML's unquoted on


def test_auto_follows_the_extra_quietly_and_off_never_loads() -> None:
    assert resolve_mode("auto", installed=lambda: True).enabled is True
    assert resolve_mode("auto", installed=lambda: False) == resolve_mode("off", installed=lambda: True)
    assert resolve_mode("auto", installed=lambda: False).notice is None
    recall, notice = semantic_from_setting("off", installed=lambda: True)
    assert recall is None and notice is None
    recall, _ = semantic_from_setting("on", installed=lambda: True)
    assert isinstance(recall, SemanticRecall) and not recall.ready  # loads only when started


def test_auto_leaves_headless_runs_without_it_and_on_does_not() -> None:
    assert semantic_from_setting("auto", interactive=False, installed=lambda: True) == (None, None)
    recall, _ = semantic_from_setting("on", interactive=False, installed=lambda: True)
    assert isinstance(recall, SemanticRecall)


def test_an_unknown_value_is_named_and_auto_is_used() -> None:
    choice = resolve_mode("always", installed=lambda: True)
    assert choice.enabled is True and choice.notice is not None
    assert "memory.semantic" in choice.notice and "'always'" in choice.notice and "auto, on, off" in choice.notice


def test_a_model_that_fails_to_load_leaves_keyword_recall_working() -> None:
    def broken() -> object:
        raise OSError("the bundled weights are missing")

    recall = SemanticRecall(load=broken)  # type: ignore[arg-type]
    recall.start(thread=False)
    assert recall.wait(1) is False and recall.error is not None and "bundled weights" in recall.error
    assert recall.relevant("anything", [], [], []) is None


def test_the_model_loads_only_once_there_are_memories_to_recall_from() -> None:
    from app.context.memory.semantic import warm_up
    from tests.unit.context.memory.concept_embedder import ConceptEmbedder
    from tests.unit.memory_support import entry

    loads: list[int] = []

    def load() -> ConceptEmbedder:
        loads.append(1)
        return ConceptEmbedder()

    recall = SemanticRecall(load=load)
    warm_up(recall, lambda: [])
    assert recall.warmed.is_set() and loads == []  # no memories: start-up loads nothing
    assert recall.relevant("a question", [], [], []) is None and loads == []
    memory = entry("release freeze", "merges stop before a release")
    assert recall.relevant("a question", [memory], [], []) is None  # the first use starts the load...
    assert recall.wait(10) and loads == [1]
    assert recall.relevant("release freeze", [memory], [], []) is not None  # ...and later turns use it
