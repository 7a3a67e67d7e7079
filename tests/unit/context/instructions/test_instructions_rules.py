"""Project rules in .qwen/rules/: unconditional ones are injected, ``paths:`` ones wait, bad ones are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.frontmatter import FrontmatterError, read_frontmatter
from app.context.instructions.rules import load_rules
from tests.unit.context.instructions.support import write


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def rules_dir(root: Path) -> Path:
    return root / ".qwen" / "rules"


def test_no_rules_directory_means_no_rules(root: Path) -> None:
    result = load_rules(root)
    assert (result.rules, result.conditional, result.problems) == ([], [], [])


def test_rules_without_frontmatter_are_unconditional_and_sorted_by_relative_path(root: Path) -> None:
    write(rules_dir(root) / "zeta.md", "Z rule\n")
    write(rules_dir(root) / "alpha" / "nested.md", "A nested\n")
    write(rules_dir(root) / "alpha.md", "  A rule  \n")
    write(rules_dir(root) / "notes.txt", "not a rule")
    result = load_rules(root)
    assert [r.name for r in result.rules] == ["alpha.md", "alpha/nested.md", "zeta.md"]
    assert [r.content for r in result.rules] == ["A rule", "A nested", "Z rule"]
    assert result.rules[0].display_path == ".qwen/rules/alpha.md"
    assert not result.rules[0].conditional


def test_a_rule_with_paths_is_conditional_and_not_injected(root: Path) -> None:
    write(rules_dir(root) / "web.md", "---\npaths:\n  - 'web/**/*.ts'\n  - '*.tsx'\n---\nPrefer hooks.\n")
    write(rules_dir(root) / "py.md", "---\npaths: '**/*.py'\ndescription: python\n---\nUse ruff.\n")
    result = load_rules(root)
    assert result.rules == []
    assert [(r.name, r.globs, r.content) for r in result.conditional] == [
        ("py.md", ("**/*.py",), "Use ruff."),
        ("web.md", ("web/**/*.ts", "*.tsx"), "Prefer hooks."),
    ]


def test_frontmatter_without_paths_is_unconditional_and_stripped(root: Path) -> None:
    write(rules_dir(root) / "a.md", "---\ndescription: house style\n---\n\nTabs never.\n")
    write(rules_dir(root) / "b.md", "---\npaths: []\n---\nAlways.\n")
    result = load_rules(root)
    assert [r.content for r in result.rules] == ["Tabs never.", "Always."]


def test_malformed_yaml_is_reported_with_file_and_line_and_skipped(root: Path) -> None:
    write(rules_dir(root) / "bad.md", "---\ndescription: ok\npaths: [unclosed\n---\nBody\n")
    write(rules_dir(root) / "good.md", "Good\n")
    result = load_rules(root)
    assert [r.name for r in result.rules] == ["good.md"]
    # The bracket opened on line 3 is never closed: the message points at where it began.
    assert result.problems == [
        (
            "Skipped rule .qwen/rules/bad.md: malformed frontmatter at line 3: invalid YAML in frontmatter: "
            "expected ',' or ']', but got '<stream end>'"
        )
    ]


def test_malformed_frontmatter_shapes(root: Path) -> None:
    write(rules_dir(root) / "a-unclosed.md", "---\npaths: ['x']\nBody without a closing fence\n")
    write(rules_dir(root) / "b-list.md", "---\n- one\n- two\n---\nBody\n")
    write(rules_dir(root) / "c-paths.md", "---\ndescription: d\npaths:\n  nested: map\n---\nBody\n")
    write(rules_dir(root) / "d-empty-glob.md", "---\npaths: ['']\n---\nBody\n")
    result = load_rules(root)
    assert result.rules == [] and result.conditional == []
    assert result.problems == [
        "Skipped rule .qwen/rules/a-unclosed.md: malformed frontmatter at line 1: frontmatter opened with '---' is never closed",
        "Skipped rule .qwen/rules/b-list.md: malformed frontmatter at line 2: frontmatter must be a mapping of keys to values",
        "Skipped rule .qwen/rules/c-paths.md: malformed frontmatter at line 3: 'paths' must be a list of glob patterns",
        "Skipped rule .qwen/rules/d-empty-glob.md: malformed frontmatter at line 2: 'paths' must be a list of glob patterns",
    ]


def test_blank_rules_are_dropped(root: Path) -> None:
    write(rules_dir(root) / "empty.md", "  \n\n")
    write(rules_dir(root) / "header-only.md", "---\ndescription: x\n---\n\n")
    assert load_rules(root).rules == []


def test_an_untrusted_folder_has_no_rules(root: Path) -> None:
    write(rules_dir(root) / "a.md", "A")
    assert load_rules(root, trusted=False).rules == []


def test_non_utf8_rule_is_kept_with_a_warning(root: Path) -> None:
    write(rules_dir(root) / "latin.md", "caf\xe9 rule".encode("latin-1"))
    result = load_rules(root)
    assert [r.content for r in result.rules] == ["caf\ufffd rule"]
    assert result.problems == ["Rule .qwen/rules/latin.md is not valid UTF-8; undecodable bytes were replaced with U+FFFD"]


def test_crlf_frontmatter(root: Path) -> None:
    write(rules_dir(root) / "w.md", "---\r\npaths:\r\n  - '*.cs'\r\n---\r\nUse tabs.\r\n")
    assert [(r.globs, r.content) for r in load_rules(root).conditional] == [(("*.cs",), "Use tabs.")]


def test_a_symlink_loop_in_the_rules_tree_is_not_followed(root: Path) -> None:
    write(rules_dir(root) / "a.md", "A")
    (rules_dir(root) / "loop").symlink_to(rules_dir(root))
    assert [r.name for r in load_rules(root).rules] == ["a.md"]


def test_display_paths_are_relative_to_cwd(root: Path) -> None:
    write(rules_dir(root) / "a.md", "A")
    (root / "pkg").mkdir()
    assert load_rules(root, cwd=root / "pkg").rules[0].display_path == "../.qwen/rules/a.md"


def test_read_frontmatter() -> None:
    assert read_frontmatter("plain\n---\n").body == "plain\n---\n"
    header = read_frontmatter("---\na: 1\nb: [x]\n---\nbody")
    assert header.data == {"a": 1, "b": ["x"]} and header.body == "body" and header.key_lines == {"a": 2, "b": 3}
    assert read_frontmatter("---\n---\nbody").data == {}
    with pytest.raises(FrontmatterError) as caught:
        read_frontmatter("---\na: 1\n  b: 2\n---\n")
    assert caught.value.line == 3
