"""What glob and grep_search let ripgrep filter by file name, and when ripgrep's listing is the answer."""

from __future__ import annotations

import pytest

from app.core.tools.name_filter import name_filter, plain_names


@pytest.mark.parametrize(
    ("pattern", "names", "max_depth", "exact"),
    [
        ("**", (), None, True),  # everything below
        ("**/*", (), None, True),
        ("*", (), 1, True),  # every file directly in the directory
        ("**/*.py", ("*.py",), None, True),
        ("*.md", ("*.md",), 1, True),
        (".env", (".env",), 1, True),
        ("**/package.json", ("package.json",), None, True),
        ("**/*.{ts,tsx}", ("*.ts", "*.tsx"), None, True),
        ("**/café.txt", ("café.txt",), None, True),
        ("{,x}.py", (".py", "x.py"), 1, True),
        ("**/a**b", ("a*b",), None, True),  # "**" inside a name is "*" in globmatch
        # A superset: the name is checked by ripgrep, the rest of the path in Python.
        ("*/x.py", ("x.py",), None, False),
        ("**/a/**/*.py", ("*.py",), None, False),
        ("{**/x.py,y.py}", ("x.py", "y.py"), None, False),  # not one shape
        # Nothing ripgrep can check the same way: all of it in Python.
        ("x?.py", (), None, False),  # "?" is a byte for ripgrep, a character here
        ("[ab].c", (), None, False),
        ("a\\b", (), None, False),  # "\" escapes for ripgrep, is a character here
        ("*/**", (), None, False),
        ("src/", (), None, False),
        ("*.{py", (), None, False),  # unbalanced: the brace is a character
        ("{,x}", (), None, False),  # one alternative is an empty name
    ],
)
def test_name_filter(pattern: str, names: tuple[str, ...], max_depth: int | None, exact: bool) -> None:
    got = name_filter(pattern)
    assert (got.names, got.max_depth, got.exact) == (names, max_depth, exact)


def test_too_many_brace_alternatives_stay_literal_and_are_not_handed_over() -> None:
    # globmatch takes braces literally beyond 256 alternatives; ripgrep would expand them.
    pattern = "**/" + "{a,b}" * 9 + ".py"
    assert name_filter(pattern).names == ()
    assert name_filter(pattern).exact is False


@pytest.mark.parametrize(
    ("include", "expected"),
    [
        ("*.py", ("*.py",)),
        ("*.{ts,tsx}", ("*.ts", "*.tsx")),
        ("Makefile", ("Makefile",)),
        ("src/*.py", None),  # about where the file is, not its name
        ("x?.py", None),
        ("[ab].py", None),
    ],
)
def test_plain_names_for_grep_include(include: str, expected: tuple[str, ...] | None) -> None:
    assert plain_names(include) == expected
