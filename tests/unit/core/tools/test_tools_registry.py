"""The tool registry, its subsets, and the schemas sent to the model."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.core.tools.base import Tool, ToolContext, ToolKind, ToolResult
from app.core.tools.registry import ToolRegistry, builtin_registry

BUILTINS = ["read_file", "list_directory", "glob", "grep_search", "edit", "write_file", "run_shell_command"]


def test_builtin_registry_has_the_seven_tools() -> None:
    registry = builtin_registry()
    assert registry.names() == BUILTINS
    assert len(registry) == 7
    for name in BUILTINS:
        tool = registry.get(name)
        assert tool is not None and tool.name == name
    assert registry.get("nope") is None


def test_schemas_are_valid_openai_function_tools() -> None:
    schemas = builtin_registry().schemas()
    assert [schema["function"]["name"] for schema in schemas] == BUILTINS
    for schema in schemas:
        assert set(schema) == {"type", "function"}
        assert schema["type"] == "function"
        function = schema["function"]
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", function["name"])
        assert isinstance(function["description"], str) and len(function["description"]) > 20
        parameters = function["parameters"]
        assert parameters["type"] == "object"
        assert isinstance(parameters["properties"], dict) and parameters["properties"]
        assert set(parameters["required"]) <= set(parameters["properties"])
        for prop in parameters["properties"].values():
            assert prop["type"] in {"string", "integer", "number", "boolean"}
            assert prop.get("description")
        json.dumps(schema)  # must serialize as-is


def test_required_arguments_match_the_fixed_names() -> None:
    required = {s["function"]["name"]: s["function"]["parameters"]["required"] for s in builtin_registry().schemas()}
    assert required == {
        "read_file": ["path"],
        "list_directory": ["path"],
        "glob": ["pattern"],
        "grep_search": ["pattern"],
        "edit": ["path", "old_string", "new_string"],
        "write_file": ["path", "content"],
        "run_shell_command": ["command"],
    }


def test_schemas_for_some_names_keep_registry_order_and_skip_unknown() -> None:
    schemas = builtin_registry().schemas(["run_shell_command", "read_file", "unknown"])
    assert [s["function"]["name"] for s in schemas] == ["read_file", "run_shell_command"]


def test_restricted_is_an_independent_subset() -> None:
    registry = builtin_registry()
    subset = registry.restricted(["edit", "read_file", "missing"])
    assert subset.names() == ["read_file", "edit"]
    subset.register(_Dummy())
    assert "dummy" in subset and "dummy" not in registry


def test_read_only_keeps_only_read_tools() -> None:
    read_only = builtin_registry().read_only()
    assert read_only.names() == ["read_file", "list_directory", "glob", "grep_search"]
    assert all(tool.kind is ToolKind.READ for tool in read_only)


def test_register_rejects_duplicates_and_nameless_tools() -> None:
    registry = ToolRegistry([_Dummy()])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(_Dummy())
    nameless = _Dummy()
    nameless.name = ""
    with pytest.raises(ValueError, match="no name"):
        registry.register(nameless)


class _Dummy(Tool):
    name = "dummy"
    description = "does nothing"
    parameters = {"type": "object", "properties": {}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(output="")
