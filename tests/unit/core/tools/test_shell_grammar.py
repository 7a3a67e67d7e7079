"""The bash grammar model (shell_syntax.py): checked against what bash itself runs.

The differential test runs each line in a real bash with stub programs on PATH that
record their argv, and compares with the simple commands the model reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from app.core.tools.shell_syntax import parse_shell

STUB = """#!/bin/sh
{ printf '%s\\037' "$(basename "$0")" "$@"; printf '\\036'; } >> "$ARGV_LOG"
"""

# Lines whose every program runs (the stubs exit 0), in the shapes commands take.
LINES = [
    "p1 'a b' \"c d\" e\\ f",
    "p1 \"x$(p2 y)z\"",
    "FOO=1 p1 --opt=v a=b",
    "p1 a && p2 b; p3 | p4 c",
    "p1 <<EOF\nhi $(p2 inner)\nEOF",
    "p1 \"a\\\"b\" 'c\\d' \"e\\\\f\" \"\\$x\" \\$y",
    "p1 a\\;b \\\"q a#b #c p9",
    "p1 \"\" ''",
    "p1 \"a\nb\" 'c\nd'",
    "(p1 x); { p2 y; }",
    "if p1; then p2 z; fi",
    "while p1 once; do p2; break; done",
    "p1 {} ';' '{a,b}'",
    "p1 \\\\ 'a'\"b\"c",
    "p1 `p2 q`",
    "p1 \\\n  --continued",
    "! p1 neg",
    "p1 2>/dev/null >&2 </dev/null",
    "p1 \"$(p2 \"nested quotes\")\"",
    "case x in x) p1 in-case;; esac",
    "p1 x | p2 y |& p3 z",
    "p1 -- -x --y=z",
    "p1 \"$(p2 \")\")\"",
    "p1 $( p2 ')' )",
    "p1 $(case x in x) p2;; esac)",
    "p1 \"$(p2 <<EOF\nhi\nEOF\n)\"",
    "p1 if then fi do done esac case in",
    "p1 'it''s' a\\ \\ b \"a'b\" 'a\"b' \\#x a#b",
    "p1 \"\\a\\n\" a\\\\nb '' \"\" a\"\"b",
    "p1 [ ] { } {x} a{b =x !x a!b",
    "p1 x >out; p2 < out",
    "p1 $(p2 $(p3 z))",
    "p1 x #y\np2 z",
    "p1 $(: ; p2)",
    "p1 2>&- 3<&- &>/dev/null >| f",
    "p1 <<-EOF\n\tbody\n\tEOF",
    "p1 é",
    "p1\tx",
]


@pytest.fixture(scope="module")
def stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bin_dir = tmp_path_factory.mktemp("stubs")
    for index in range(1, 10):
        path = bin_dir / f"p{index}"
        path.write_text(STUB, encoding="utf-8")
        path.chmod(0o755)
    return bin_dir


def _bash_argvs(line: str, stubs: Path, tmp_path: Path) -> list[tuple[str, ...]]:
    log = tmp_path / "argv.log"
    log.write_bytes(b"")
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "ARGV_LOG": str(log), "HOME": str(tmp_path)}
    subprocess.run(["bash", "-c", line], env=env, cwd=tmp_path, check=False, timeout=10, capture_output=True)
    records = log.read_bytes().decode().split("\x1e")[:-1]
    return [tuple(record.split("\x1f")[:-1]) for record in records]


@pytest.mark.parametrize("line", LINES)
def test_the_model_reads_the_argv_bash_runs(line: str, stubs: Path, tmp_path: Path) -> None:
    script = parse_shell(line)
    assert script.ok, script.first_error
    programs = [c for c in script.all_commands() if c.argv_words and c.argv[0].startswith("p")]
    ours = [tuple(c.argv) for c in programs if all(w.known for w in c.argv_words)]
    ran = _bash_argvs(line, stubs, tmp_path)
    assert len(programs) == len(ran), (programs, ran)
    missing = Counter(ours) - Counter(ran)
    assert not missing, f"the model reads {sorted(missing)} but bash ran {ran}"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("git status $'\\x3b' rm -rf x", "$'...' quoting"),
        ("p1 $\"loc\"", "locale quoting"),
        ("$(echo rm) x", "known only when it runs"),
        ('"$cmd" x', "known only when it runs"),
        ("${X}", "known only when it runs"),
        ("r*m x", "known only when it runs"),
        ("{rm,x}", "syntax error"),
        ("p1 'a'\\\n'b'", "line continuation inside a word"),
        ("p1 `p2 \\`rm x\\``", "a backslash inside `...`"),
        ("f() { rm x; }", "defines a function"),
        ("echo $((1+2))", "arithmetic"),
        ("((x++))", "arithmetic"),
        ("cat >(rm x)", ">(...) process substitution"),
        ("r\\\nm x", "line continuation inside a word"),
        ("ls\r\nrm x", "carriage return"),
        ("echo 'open", "syntax error"),
        ("echo $(open", "syntax error"),
        ("ls >", "syntax error"),
        ("[[ a -eq 1 ]]", "arithmetic comparison"),
        ("x[$(rm y)]=1", "array element"),
        ("select x in a; do ls; done", "not analysed"),
        ("for ((i=0; i<3; i++)); do ls; done", "not analysed"),
    ],
)
def test_what_the_model_cannot_follow_is_reported(line: str, reason: str) -> None:
    script = parse_shell(line)
    assert not script.ok
    assert reason in (script.first_error or ""), script.first_error


@pytest.mark.parametrize("line", ["echo 'open; rm x", "$(echo rm) x", '"$cmd" x', "${X}", "f() { :; }", "r\\\nm x", "r*m x"])
def test_a_program_known_only_when_it_runs_is_flagged(line: str) -> None:
    assert parse_shell(line).hides_program


def test_words_carry_whether_bash_changes_them() -> None:
    (simple,) = parse_shell("cat $HOME/x ~/y '*.py' *.py \"$(id)\" plain").commands
    flags = [(w.text, w.dynamic, w.glob) for w in simple.argv_words]
    assert flags == [
        ("cat", False, False),
        ("$HOME/x", True, False),
        ("~/y", True, False),
        ("*.py", False, False),  # quoted: literal
        ("*.py", False, True),
        ("$(id)", True, False),
        ("plain", False, False),
    ]


def test_heredoc_bodies_and_pipes_after_them_are_seen() -> None:
    script = parse_shell("cat <<EOF | sh\n$(rm inner)\nEOF\nls")
    assert [c.argv for c in script.all_commands()] == [["cat"], ["sh"], ["ls"], ["rm", "inner"]]
    assert script.operators[0] == "|"
    quoted = parse_shell("cat <<'EOF'\n$(rm inner)\nEOF")
    assert [c.argv for c in quoted.all_commands()] == [["cat"]]  # a quoted delimiter keeps the body literal


def test_the_grammar_is_imported_only_when_a_command_is_judged() -> None:
    code = (
        "import sys; import app.core.tools.permissions, app.core.tools.shell, app.core.tools.shell_readonly; "
        "print('tree_sitter' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[4])})
    assert out.stdout.strip() == "False"


def test_characters_that_crash_the_grammar_are_given_to_it_as_ascii() -> None:
    """tree-sitter-bash 0.25.1 segfaults on '{' and some astral characters; the line still parses, in a child
    process so a crash fails this test instead of killing the run."""
    import subprocess
    import sys

    code = (
        "from app.core.tools.shell_syntax import parse_shell\n"
        "for line in ['{\\U000f8481', '{\\U00100000', 'echo {\\U000f8481} h\\u00e9llo']:\n"
        "    parse_shell(line)\n"
        "s = parse_shell('echo h\\u00e9llo w\\u00f6rld')\n"
        "print(s.commands[0].argv)\n"
    )
    root = Path(__file__).resolve().parents[4]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['echo', 'héllo', 'wörld']", "words keep their real characters"


def test_find_exec_of_a_shell_is_analysed_inside() -> None:
    from app.core.tools.shell_wrappers import analyse_command

    analysis = analyse_command("find . -exec bash -c 'rm -rf x' \\;")
    assert [i.name for i in analysis.invocations] == ["find", "bash", "rm"]


def test_a_deny_rule_holds_through_find_exec_of_a_shell_in_yolo_mode() -> None:
    from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy
    from app.core.tools.shell import ShellTool

    policy = PermissionPolicy(deny=["run_shell_command(rm *)"], mode=ApprovalMode.YOLO)
    for line in ("find . -exec bash -c 'rm -rf x' \\;", "find . -execdir sh -c 'cd / && rm x' \\;", "find . -exec sudo rm {} +"):
        decision, reason = policy.decide(ShellTool(), {"command": line})
        assert decision is PermissionDecision.DENY, (line, reason)


def test_words_the_grammar_splits_where_bash_joins_them_hide_the_program() -> None:
    """Found by the differential fuzz: bash runs p1 for ''\\p1, the grammar saw '' and p1."""
    from app.core.tools.shell_syntax import parse_shell

    for line in ("''\\p1", "x''\\p1", '""\\p1', "''\\ p1", "''\\p1 a"):
        script = parse_shell(line)
        assert not script.ok and script.hides_program, line
    for line in ("''p1", "\\p1", "p1 'a' b", "p1 [ ] { } {x} a{b"):
        assert parse_shell(line).ok, line
