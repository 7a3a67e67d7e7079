"""The shell grammar model (tree-sitter-bash) and the read-only command allowlist: the cases kept from before."""

from __future__ import annotations

import pytest

from app.core.tools.shell_readonly import read_only_refusal
from app.core.tools.shell_syntax import parse_shell


def _words(command: str) -> list[list[str]]:
    return [simple.words for simple in parse_shell(command).all_commands()]


def test_control_operators_split_commands() -> None:
    script = parse_shell("git status && rm -rf build; ls | wc -l || echo no")
    assert [c.words for c in script.commands] == [
        ["git", "status"],
        ["rm", "-rf", "build"],
        ["ls"],
        ["wc", "-l"],
        ["echo", "no"],
    ]
    assert script.operators == ["&&", ";", "|", "||"]


def test_quotes_keep_operators_inside_words() -> None:
    assert _words("echo 'a && b' \"c; d\" e\\;f") == [["echo", "a && b", "c; d", "e;f"]]


def test_redirections_are_separated_from_words() -> None:
    (simple,) = parse_shell("cmd arg 2>&1 >out.txt <in.txt").commands
    assert simple.words == ["cmd", "arg"]
    assert [(r.operator, r.target) for r in simple.redirects] == [(">&", "1"), (">", "out.txt"), ("<", "in.txt")]


def test_substitutions_are_parsed_too() -> None:
    script = parse_shell('echo "$(rm -rf x)" `id`')
    assert _words('echo "$(rm -rf x)" `id`')[1:] == [["rm", "-rf", "x"], ["id"]]
    assert len(script.substitutions) == 2


def test_assignments_and_program() -> None:
    (simple,) = parse_shell("FOO=1 BAR=2 npm test").commands
    assert simple.assignments == ["FOO=1", "BAR=2"]
    assert simple.program == "npm"


def test_comments_and_grouping() -> None:
    assert _words("ls # ; rm -rf /") == [["ls"]]
    assert parse_shell("(cd x && ls)").grouping


@pytest.mark.parametrize("command", ["echo 'open", 'echo "open', "echo $(open", "echo `open", "ls >"])
def test_unparseable_commands_are_reported(command: str) -> None:
    assert not parse_shell(command).ok


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "cat README.md",
        "git status",
        "git log --oneline -5 | head -3",
        "git diff HEAD~1 -- app/",
        "git branch -a",
        "grep -rn TODO app 2>/dev/null",
        "rg -n 'def main' app",
        "find . -name '*.py' -type f",
        "head -20 a.txt && tail -5 a.txt",
        "wc -l a.txt; pwd",
        "echo hello",
        "cat a.txt 2>&1 | sort | uniq -c",
    ],
)
def test_read_only_commands_are_allowed(command: str) -> None:
    assert read_only_refusal(command) is None


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf build", "rm is not on the list"),
        ("ls > listing.txt", "redirection > listing.txt"),
        ("ls >> listing.txt", "redirection >> listing.txt"),
        ("ls; rm x", "rm is not on the list"),
        ("ls && touch x", "touch is not on the list"),
        ("cat script | sh", "sh is not on the list"),
        ("find . -delete", "find -delete"),
        ("find . -exec rm {} ;", "find -exec"),
        ("git push", "git push is not on the list"),
        ("git branch -D main", "only listing"),
        ("git diff --output=patch.txt", "--output=patch.txt"),
        ("echo $(rm x)", "command substitution"),
        ("cat <(rm x)", "command substitution"),
        ("FOO=1 ls", "environment variables"),
        ("sleep 10 &", "background"),
        ("(rm x)", "subshells"),
        ("rg --pre ./evil x", "rg --pre"),
        ("sort -o out.txt in.txt", "sort -o"),
        ("/bin/rm x", "/bin/rm is not on the list"),
        ("echo 'unterminated", "could not be analysed"),
        ("", "empty"),
    ],
)
def test_commands_that_may_write_are_refused(command: str, reason: str) -> None:
    refusal = read_only_refusal(command)
    assert refusal is not None and reason in refusal, refusal
