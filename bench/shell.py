"""The shell analysis: what the bash grammar costs the first time and on every command judged.

Four figures: importing tree-sitter and tree-sitter-bash and building the parser in a
fresh interpreter (paid once, on the first shell command judged); parsing one typical
command line (median over the corpus below); a whole permission decision for a shell
call (parse + wrappers + rules + the controls check); the read-only check of a command.
And what the sandbox adds to one ``ls`` run the way a command runs unasked (app/core/tools/sandbox.py):
the median wall time of ``ls`` sandboxed minus unsandboxed, over alternating runs.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time

from bench.common import ROOT, clean_env, median, report

COMMANDS = [
    "git status",
    "git log --oneline -5 | head -3",
    "ls -la src && wc -l README.md",
    "grep -rn TODO app --include='*.py' 2>/dev/null | head -20",
    "FOO=1 npm test -- --watch=false",
    "find . -name '*.py' -exec wc -l {} +",
    "bash -c 'cd app && pytest -q tests/unit'",
    "timeout 60 python -m pytest -x -q",
    'echo "$(git rev-parse --abbrev-ref HEAD)" > branch.txt',
    "cat <<EOF > notes.md\nhello\nEOF",
]
ROUNDS = 200
IMPORT_RUNS = 7


def _import_ms() -> float:
    code = (
        "import time; t = time.perf_counter(); import tree_sitter, tree_sitter_bash; "
        "tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language())); "
        "print((time.perf_counter() - t) * 1000)"
    )
    runs = []
    for _ in range(IMPORT_RUNS):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=clean_env())
        runs.append(float(out.stdout.strip()))
    return median(runs)


def _per_call_ms(function: object) -> float:
    samples = []
    for command in COMMANDS:
        start = time.perf_counter()
        for _ in range(ROUNDS):
            function(command)  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1000 / ROUNDS)
    return median(samples)


def main() -> None:
    from app.core.tools.permissions import PermissionPolicy
    from app.core.tools.shell import ShellTool
    from app.core.tools.shell_readonly import read_only_refusal
    from app.core.tools.shell_syntax import parse_shell

    report("shell_grammar_import_ms", _import_ms(), "ms")
    parse_shell("warm up")
    report("shell_parse_ms", _per_call_ms(parse_shell), "ms")
    policy = PermissionPolicy(allow=["run_shell_command(git *)"], deny=["run_shell_command(rm *)"], root=ROOT)
    shell = ShellTool()
    report("shell_decision_ms", _per_call_ms(lambda c: policy.decide(shell, {"command": c})), "ms")
    report("shell_read_only_check_ms", _per_call_ms(lambda c: read_only_refusal(c, roots=[ROOT], cwd=ROOT)), "ms")
    _sandbox_cost()


SANDBOX_RUNS = 41


def _sandbox_cost() -> None:
    from app.core.tools.sandbox import Confinement, sandbox_status
    from app.core.tools.shell_runner import run_command

    status = sandbox_status()
    if not status.available:
        print(f"shell_sandbox_added_ms: skipped ({status.describe()})", flush=True)
        return

    async def once(confined: bool) -> float:
        confinement = Confinement.create() if confined else None
        env = confinement.environment(dict(os.environ)) if confinement else dict(os.environ)
        started = time.perf_counter()
        await run_command("ls", ROOT, 30, env=env, confinement=confinement)
        elapsed = time.perf_counter() - started
        if confinement is not None:
            shutil.rmtree(confinement.temp_dir, ignore_errors=True)
        return elapsed * 1000

    async def rounds() -> tuple[list[float], list[float]]:
        plain, boxed = [], []
        for _ in range(SANDBOX_RUNS):
            plain.append(await once(False))
            boxed.append(await once(True))
        return plain, boxed

    plain, boxed = asyncio.run(rounds())
    added = median(boxed) - median(plain)
    report("shell_sandbox_added_ms", added, "ms", target=15.0, beside=f"ls {median(plain):.1f} ms plain, {median(boxed):.1f} ms in landlock ABI {status.abi}")


if __name__ == "__main__":
    main()
