"""The **-aware glob matcher shared by glob, grep's include filter and permission rules."""

from __future__ import annotations

import pytest

from app.core.tools.globmatch import expand_braces, glob_match, literal_prefix


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),  # "*" stays within one directory
        ("**/*.py", "a.py", True),  # "**/" may be zero directories
        ("**/*.py", "src/deep/a.py", True),
        ("src/**", "src/a/b/c.txt", True),
        ("src/**", "srcx/a", False),
        ("a/**/b.txt", "a/b.txt", True),
        ("a/**/b.txt", "a/x/y/b.txt", True),
        ("a/**/b.txt", "ab.txt", False),
        ("*", ".env", True),  # dot-files are ordinary names
        (".*", ".gitignore", True),
        ("**/.github/**", ".github/workflows/ci.yml", True),
        ("?.md", "a.md", True),
        ("?.md", "ab.md", False),
        ("[ab].md", "b.md", True),
        ("[!ab].md", "b.md", False),
        ("[!ab].md", "c.md", True),
        ("*.{ts,tsx}", "x.tsx", True),
        ("*.{ts,tsx}", "x.js", False),
        ("{src,tests}/**/*.py", "tests/unit/t.py", True),
        ("./src/*.py", "src/a.py", True),
        ("file(1).txt", "file(1).txt", True),  # regex characters are literal
        ("a+b", "aab", False),
        ("[unclosed", "[unclosed", True),
    ],
)
def test_glob_match(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected


def test_star_never_crosses_a_slash_even_when_doubled_inside_a_segment() -> None:
    assert not glob_match("a**b", "a/x/b")
    assert glob_match("a**b", "axxb")


def test_expand_braces_nested_and_unbalanced() -> None:
    assert expand_braces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"]
    assert expand_braces("a{b") == ["a{b"]
    assert expand_braces("{single}") == ["{single}"]


def test_literal_prefix_stops_at_the_first_wildcard() -> None:
    assert literal_prefix("src/app/**/*.py") == "src/app"
    assert literal_prefix("*.py") == ""
    assert literal_prefix("src/{a,b}/x.py") == "src"
    assert literal_prefix("../x/*.py") == ""
