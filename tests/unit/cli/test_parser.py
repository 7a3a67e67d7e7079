"""The command line's parser: every subcommand listed with a line of its own, each with --help, none paid for up front."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.parser import SUBCOMMAND_MODULES, build_parser

ROOT = Path(__file__).resolve().parents[3]
SUBCOMMANDS = ("sessions", "context", "skills", "memory", "mcp", "hooks", "trust", "untrust", "permissions")


def _run(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "app", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))


def test_help_lists_every_subcommand_with_a_one_line_description() -> None:
    result = _run("--help")
    assert result.returncode == 0, result.stderr
    listed = {choice.dest: choice.help for choice in _subparsers(build_parser())._choices_actions}
    assert set(listed) == set(SUBCOMMANDS)
    for name, text in listed.items():
        assert text and "\n" not in text, name
        assert f"    {name} " in result.stdout, f"{name} missing from --help"


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_subcommand_has_its_own_help(name: str) -> None:
    result = _run(name, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: agentctx-tui {name} ")


def test_a_subcommand_without_its_action_is_a_usage_error_naming_the_subcommand() -> None:
    result = _run("memory")
    assert result.returncode == 2
    assert "agentctx-tui memory: the following arguments are required: action" in result.stderr
    assert "(run 'agentctx-tui memory --help' for the options)" in result.stderr


def test_an_unknown_subcommand_is_a_usage_error_listing_the_known_ones() -> None:
    result = _run("sesions", "list")
    assert result.returncode == 2
    assert "invalid choice: 'sesions'" in result.stderr and "'sessions'" in result.stderr


def test_the_context_modes_are_the_report_renderers() -> None:
    from app.cli.context import MODES
    from app.context.report import RENDERERS

    assert sorted(MODES) == sorted(RENDERERS)


def test_every_subcommand_module_is_wired() -> None:
    names = {path.stem for path in (ROOT / "app" / "cli").glob("*.py")} - {"__init__", "parser", "default", "settings", "headless", "exit_codes", "context_edit"}
    assert names == set(SUBCOMMAND_MODULES)


def test_building_the_parser_imports_no_subcommand_dependency() -> None:
    probe = (
        "import sys\n"
        "from app.cli.parser import build_parser\n"
        "build_parser()\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('app', 'textual', 'yaml', 'asyncio', 'mcp', 'httpx2'))))\n"
    )
    result = _run(code=probe)
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    allowed = {"app", "app.cli", "app.cli.parser", "app.cli.default", "app.cli.exit_codes"} | {f"app.cli.{name}" for name in SUBCOMMAND_MODULES}
    assert loaded <= allowed, sorted(loaded - allowed)


def test_the_names_map_to_the_modules_that_declare_them() -> None:
    from app.cli.parser import SUBCOMMANDS

    for name, module in SUBCOMMANDS.items():
        parser = build_parser([name])
        assert name in _subparsers(parser).choices, name
        assert module in SUBCOMMAND_MODULES
    assert set(SUBCOMMANDS) == set(_subparsers(build_parser()).choices)


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["-p", "say hello"],
        ["-p", "sessions"],  # an option's value that reads like a subcommand
        ["--output-format", "json", "-p", "hi"],
        ["--output-format=json", "-p", "hi"],
        ["-psessions"],
        ["-m", "some-model", "-C", ".", "-c"],
        ["sessions", "list"],
        ["untrust", "."],
        ["memory", "recall", "how do we deploy"],
        ["context", "--session", "abc", "map"],
    ],
)
def test_a_command_line_parses_the_same_with_only_the_subparsers_it_needs(words: list[str]) -> None:
    def parsed(parser: argparse.ArgumentParser) -> dict:
        return {k: v for k, v in vars(parser.parse_args(words)).items() if k != "run"} | {"run": vars(parser.parse_args(words))["run"].__qualname__}

    assert parsed(build_parser(words)) == parsed(build_parser())


def test_the_default_command_builds_no_subparser() -> None:
    assert _subparsers(build_parser(["-p", "hi"])).choices == {}
    assert set(_subparsers(build_parser(["--help"])).choices) == set(_subparsers(build_parser()).choices)
    assert set(_subparsers(build_parser(["sesions", "list"])).choices) == set(_subparsers(build_parser()).choices)
