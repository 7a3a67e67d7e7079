"""Fuzzing the shell analysis: it never raises, and it never misses a program a real bash runs.

The second property is differential: random shell-ish text runs in a real bash with stub programs
(p1, p2, p3) on PATH that record their names; whenever the analysis calls a line analysable and
its programs known, every stub bash ran must be among the programs the analysis saw. This is the
property the permission engine rests on (a deny rule can only stop a program it sees).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.core.tools.permissions import ApprovalMode, PermissionDecision, PermissionPolicy
from app.core.tools.shell import ShellTool
from app.core.tools.shell_readonly import read_only_refusal
from app.core.tools.shell_wrappers import analyse_command
from tests.reliability.fuzzing import BUDGETS, check, fuzzed

# Pieces of shell: programs, words, quotes, operators, substitutions, redirections, escapes. No loop
# keywords: stubs always succeed, so "while p1" would never end.
PIECES = [
    "p1", "p2", "p3", " ", " ", " ", "a", "-x", ";", "&&", "||", "|", "\n", "'", '"', "$(", ")", "(", "`", "\\",
    "#", "$x", "${x}", "{", "}", "<", ">", "/dev/null", "*", "=", "!", "&", "$'", "\\n", "<<", "EOF", "bash -c ",
    "env ", "xargs ", "sudo ", "timeout 1 ", "find . -exec ", " {} ", "\\;", "eval ", "command ", "x=",
]  # fmt: skip
LINES = st.lists(st.sampled_from(PIECES), max_size=18).map("".join)
STUB = "#!/bin/sh\nprintf '%s\\n' \"$(basename \"$0\")\" >> \"$ARGV_LOG\"\n"
shell = ShellTool()


@pytest.mark.parametrize("examples", BUDGETS)
def test_the_analysis_never_raises_and_always_decides(examples: int) -> None:
    policy = PermissionPolicy(allow=["run_shell_command(p1 *)"], deny=["run_shell_command(p2 *)"], mode=ApprovalMode.YOLO)

    @given(st.one_of(LINES, st.text(max_size=120)))
    def prop(line: str) -> None:
        fuzzed()
        decision, reason = policy.decide(shell, {"command": line})
        assert decision in (PermissionDecision.ALLOW, PermissionDecision.DENY) and reason
        refusal = read_only_refusal(line, roots=[Path("/nonexistent-root")], cwd=Path("/nonexistent-root"))
        assert refusal is None or isinstance(refusal, str)

    check(prop, examples)


@pytest.fixture(scope="module")
def stub_bin() -> Path:
    directory = Path(tempfile.mkdtemp(prefix="stubs-"))
    for name in ("p1", "p2", "p3"):
        (directory / name).write_text(STUB, encoding="utf-8")
        (directory / name).chmod(0o755)
    return directory


@pytest.mark.parametrize("examples", BUDGETS)
def test_every_program_bash_runs_is_one_the_analysis_saw(examples: int, stub_bin: Path, tmp_path: Path) -> None:
    @given(LINES)
    def prop(line: str) -> None:
        analysis = analyse_command(line)
        assume(analysis.ok and not analysis.unknown_program)
        fuzzed()
        seen = {invocation.name for invocation in analysis.invocations}
        log = tmp_path / "ran.log"
        log.write_text("", encoding="utf-8")
        env = {"PATH": f"{stub_bin}:/usr/bin:/bin", "ARGV_LOG": str(log), "HOME": str(tmp_path)}
        try:
            subprocess.run(["bash", "-c", line], env=env, cwd=tmp_path, capture_output=True, timeout=5, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return
        ran = set(log.read_text(encoding="utf-8").split())
        assert ran <= seen, f"bash ran {sorted(ran - seen)} in {line!r}, the analysis saw {sorted(seen)}"

    check(prop, examples)
