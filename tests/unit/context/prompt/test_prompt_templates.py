"""The packaged templates: all present, found through importlib.resources, examples using only our tools."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from app.context.prompt.base import template
from app.core.tools.registry import builtin_registry

TEMPLATES = [
    "base",
    "sandbox_seatbelt",
    "sandbox_container",
    "sandbox_none",
    "actions",
    "git_repository",
    "tool_examples_qwen_coder",
    "tool_examples_qwen_vl",
    "tool_examples_general",
    "final_reminder",
]
EXAMPLES = ["tool_examples_qwen_coder", "tool_examples_qwen_vl", "tool_examples_general"]


def test_every_template_ships_in_the_package() -> None:
    shipped = {p.name for p in resources.files("app.context.prompt").joinpath("templates").iterdir()}
    assert {f"{name}.md" for name in TEMPLATES} <= shipped
    for name in TEMPLATES:
        assert template(name) and template(name) == template(name).strip()


def _calls(name: str) -> list[tuple[str, set[str]]]:
    """(tool, argument names) for every call an example template shows."""
    text = template(name)
    if name == "tool_examples_qwen_coder":
        blocks = re.findall(r"<function=(\w+)>(.*?)</function>", text, re.S)
        return [(tool, set(re.findall(r"<parameter=(\w+)>", body))) for tool, body in blocks]
    if name == "tool_examples_qwen_vl":
        calls = [json.loads(b) for b in re.findall(r"<tool_call>\n(.*?)\n</tool_call>", text, re.S)]
        assert all(set(call) == {"name", "arguments"} for call in calls)
        return [(call["name"], set(call["arguments"])) for call in calls]
    return [(tool, set(json.loads(args))) for tool, args in re.findall(r"\[(\w+) (\{.*?\})\]", text)]


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_call_our_tools_with_their_parameters(name: str) -> None:
    registry = builtin_registry()
    calls = _calls(name)
    assert len(calls) >= 5
    for tool_name, arguments in calls:
        tool = registry.get(tool_name)
        assert tool is not None, tool_name
        properties = set(tool.parameters["properties"])
        required = set(tool.parameters.get("required", []))
        assert required <= arguments <= properties, (tool_name, arguments)


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_show_every_tool(name: str) -> None:
    assert {tool for tool, _ in _calls(name)} == {
        "read_file", "write_file", "edit", "list_directory", "glob", "grep_search", "run_shell_command"
    }



