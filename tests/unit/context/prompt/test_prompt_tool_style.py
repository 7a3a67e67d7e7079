"""Choosing the tool-call example set: env override, then model name under a length guard."""

from __future__ import annotations

import pytest

from app.context.prompt import tool_call_style


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("qwen3-coder-plus", "qwen-coder"),
        ("Qwen2.5-Coder-32B-Instruct", "qwen-coder"),
        ("coder-model", "qwen-coder"),
        ("my-CODER-MODEL-v2", "qwen-coder"),
        ("qwen-vl-max", "qwen-vl"),
        ("Qwen2.5-VL-72B", "qwen-vl"),
        ("qwen3-max", "general"),
        ("qwen-plus-coder", "general"),  # a dash between "qwen" and "-coder" breaks the pattern
        ("gpt-4o", "general"),
        ("", "general"),
    ],
)
def test_model_name_decides(model: str, style: str) -> None:
    assert tool_call_style(model, {}) == style


def test_env_override_wins_case_insensitively() -> None:
    assert tool_call_style("gpt-4o", {"AGENTCTX_TOOL_CALL_STYLE": "Qwen-VL"}) == "qwen-vl"
    assert tool_call_style("qwen3-coder", {"AGENTCTX_TOOL_CALL_STYLE": " GENERAL "}) == "general"
    assert tool_call_style("gpt-4o", {"AGENTCTX_TOOL_CALL_STYLE": "qwen-coder"}) == "qwen-coder"


def test_unknown_override_falls_back_to_the_model() -> None:
    assert tool_call_style("qwen3-coder", {"AGENTCTX_TOOL_CALL_STYLE": "fancy"}) == "qwen-coder"


def test_names_of_100_characters_or_more_are_not_matched() -> None:
    long_coder = "qwen3-coder" + "x" * 89
    assert len(long_coder) == 100
    assert tool_call_style(long_coder, {}) == "general"
    assert tool_call_style(long_coder[:99], {}) == "qwen-coder"
    assert tool_call_style(long_coder, {"AGENTCTX_TOOL_CALL_STYLE": "qwen-coder"}) == "qwen-coder"
